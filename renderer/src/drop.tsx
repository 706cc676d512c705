/**
 * Files can be dropped anywhere on the window. The most recently mounted drop target takes them (the
 * overwrite dialog while it is open); otherwise they go to the import.
 */
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { draggingFiles, filesOf } from './files.js';
import { useT } from './i18n.js';

export interface DropTarget {
  onFiles(files: File[]): void;
  /** What the overlay says while files are dragged over the window. */
  label: string;
}

interface DropValue {
  register(target: DropTarget): () => void;
}

const DropContext = createContext<DropValue | null>(null);

export function DropProvider({ fallback, children }: { fallback: DropTarget; children: ReactNode }): ReactNode {
  const t = useT();
  const targets = useRef<DropTarget[]>([]);
  const fallbackRef = useRef(fallback);
  fallbackRef.current = fallback;
  const [dragging, setDragging] = useState<string | null>(null);

  const register = useCallback((target: DropTarget) => {
    targets.current.push(target);
    return () => {
      targets.current = targets.current.filter((entry) => entry !== target);
    };
  }, []);

  useEffect(() => {
    let depth = 0;
    const current = (): DropTarget => targets.current.at(-1) ?? fallbackRef.current;
    const onDragEnter = (event: DragEvent): void => {
      if (!draggingFiles(event.dataTransfer)) return;
      event.preventDefault();
      depth++;
      setDragging(current().label);
    };
    const onDragOver = (event: DragEvent): void => {
      if (!draggingFiles(event.dataTransfer)) return;
      // Without this the browser (or Electron) would open the file in the window.
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
    };
    const onDragLeave = (event: DragEvent): void => {
      if (!draggingFiles(event.dataTransfer)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setDragging(null);
    };
    const onDrop = (event: DragEvent): void => {
      const files = filesOf(event.dataTransfer);
      if (files.length === 0 && !draggingFiles(event.dataTransfer)) return;
      event.preventDefault();
      depth = 0;
      setDragging(null);
      if (files.length > 0) current().onFiles(files);
    };
    window.addEventListener('dragenter', onDragEnter);
    window.addEventListener('dragover', onDragOver);
    window.addEventListener('dragleave', onDragLeave);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragenter', onDragEnter);
      window.removeEventListener('dragover', onDragOver);
      window.removeEventListener('dragleave', onDragLeave);
      window.removeEventListener('drop', onDrop);
    };
  }, []);

  return (
    <DropContext.Provider value={{ register }}>
      {children}
      {dragging !== null && (
        <div className="drop-overlay" aria-hidden="true">
          <div className="drop-overlay__card">
            <svg className="drop-overlay__icon" viewBox="0 0 24 24" width="40" height="40" aria-hidden="true">
              <path d="M12 3v12m0 0-4.5-4.5M12 15l4.5-4.5M4 17v2a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-2" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
            </svg>
            <p className="drop-overlay__title">{dragging}</p>
            <p className="drop-overlay__hint">{t('drop.overlayHint')}</p>
          </div>
        </div>
      )}
    </DropContext.Provider>
  );
}

/** Takes dropped files while `active` (the latest active target wins). */
export function useFileDrop(target: DropTarget, active = true): void {
  const context = useContext(DropContext);
  const targetRef = useRef(target);
  targetRef.current = target;
  const { label } = target;
  useEffect(() => {
    if (!context || !active) return;
    return context.register({ label, onFiles: (files) => targetRef.current.onFiles(files) });
  }, [context, active, label]);
}
