/**
 * A list that renders only the rows in view (thousands of messages scroll smoothly). Rows may have any height;
 * each is measured once it is on screen.
 */
import { observeElementRect, useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { useCallback, useRef, type ReactNode } from 'react';

/** Before layout (a hidden tab, a first frame) the list assumes a screenful, so it is never blank. */
const UNLAID_RECT = { width: 800, height: 640 };

function observeRectOrAssume(instance: Virtualizer<HTMLDivElement, Element>, callback: (rect: { width: number; height: number }) => void): void | (() => void) {
  return observeElementRect(instance, (rect) => callback(rect.height > 0 ? rect : UNLAID_RECT));
}

export function VirtualList<T>({
  items,
  estimateSize,
  getKey,
  renderItem,
  label,
  className,
}: {
  items: readonly T[];
  estimateSize: number;
  getKey: (item: T, index: number) => string;
  renderItem: (item: T, index: number) => ReactNode;
  label: string;
  className?: string;
}): ReactNode {
  const scroller = useRef<HTMLDivElement>(null);
  const itemsRef = useRef(items);
  itemsRef.current = items;
  const getItemKey = useCallback((index: number) => {
    const item = itemsRef.current[index];
    return item === undefined ? index : getKey(item, index);
  }, [getKey]);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => estimateSize,
    getItemKey,
    overscan: 6,
    observeElementRect: observeRectOrAssume,
    // A row that is not laid out yet (0 high) keeps its estimate instead of collapsing the list.
    measureElement: (element) => {
      const height = element.getBoundingClientRect().height;
      return height > 0 ? height : estimateSize;
    },
  });
  const rows = virtualizer.getVirtualItems();
  return (
    <div ref={scroller} className={`virtual-list ${className ?? ''}`} tabIndex={0} role="region" aria-label={label}>
      <div role="list" aria-label={label} style={{ height: virtualizer.getTotalSize(), position: 'relative', width: '100%' }}>
        {rows.map((row) => {
          const item = items[row.index];
          if (item === undefined) return null;
          return (
            <div
              key={row.key}
              role="listitem"
              aria-setsize={items.length}
              aria-posinset={row.index + 1}
              data-index={row.index}
              ref={virtualizer.measureElement}
              className="virtual-list__row"
              style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${row.start}px)` }}
            >
              {renderItem(item, row.index)}
            </div>
          );
        })}
      </div>
    </div>
  );
}
