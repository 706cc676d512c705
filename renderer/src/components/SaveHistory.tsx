/**
 * A session's save history: a stacked bar per save (new, updated, skipped, deleted messages) over time, and the
 * same numbers, and more, as a table. The chart is a picture of the table; the table is what assistive
 * technology reads.
 */
import { useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import type { SaveEvent } from '../../../shared/domain.js';
import { useFormat } from '../format.js';
import { useT, type MessageKey } from '../i18n.js';
import { ReportHeaderCells } from './ReportTable.js';
import { DiffBar, DiffCount, DIFF_KINDS, STAT_KEYS, type DiffKind } from './ui.js';


/** Width of an element, following resizes (and a sensible width before layout). */
function useWidth(fallback: number): [RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = (): void => {
      const measured = element.clientWidth;
      if (measured > 0) setWidth(measured);
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

export function SaveHistoryChart({ history }: { history: SaveEvent[] }): ReactNode {
  const t = useT();
  const format = useFormat();
  const [ref, width] = useWidth(640);
  const totals = history.reduce((sum, event) => ({ new: sum.new + event.new, updated: sum.updated + event.updated, skipped: sum.skipped + event.skipped, deleted: sum.deleted + event.deleted }), { new: 0, updated: 0, skipped: 0, deleted: 0 });
  const data = history.map((event, index) => ({ index, label: format.shortDate(event.at), at: event.at, new: event.new, updated: event.updated, skipped: event.skipped, deleted: event.deleted }));
  const summary = t('session.history.chartSummary', { saves: history.length, ...totals });
  return (
    <figure className="chart" aria-label={t('session.history.chart')}>
      <div ref={ref} className="chart__canvas" role="img" aria-label={summary}>
        <BarChart width={width} height={220} data={data} margin={{ top: 8, right: 8, bottom: 0, left: -12 }} barCategoryGap="22%" accessibilityLayer={false}>
          <CartesianGrid vertical={false} stroke="var(--chart-grid)" />
          <XAxis dataKey="index" tickFormatter={(index: number) => data[index]?.label ?? ''} tick={{ fill: 'var(--text-muted)', fontSize: 12 }} axisLine={{ stroke: 'var(--border)' }} tickLine={false} />
          <YAxis allowDecimals={false} tick={{ fill: 'var(--text-muted)', fontSize: 12 }} axisLine={false} tickLine={false} width={48} />
          <Tooltip
            cursor={{ fill: 'var(--chart-cursor)' }}
            contentStyle={{ background: 'var(--surface)', border: '1px solid var(--border)', borderRadius: 8, color: 'var(--text)' }}
            labelFormatter={(index) => {
              const at = data[Number(index)]?.at;
              return at ? format.dateTime(at) : '';
            }}
            formatter={(value, name) => [format.number(Number(value)), t(STAT_KEYS[name as DiffKind] ?? 'stat.new')]}
          />
          <Legend itemSorter={null} formatter={(name: string) => t(STAT_KEYS[name as DiffKind] ?? 'stat.new')} iconType="circle" iconSize={8} wrapperStyle={{ fontSize: 12 }} />
          {DIFF_KINDS.map((kind, index) => (
            <Bar key={kind} dataKey={kind} stackId="diff" fill={`var(--c-${kind})`} isAnimationActive={false} radius={index === DIFF_KINDS.length - 1 ? [3, 3, 0, 0] : 0} maxBarSize={48} />
          ))}
        </BarChart>
      </div>
      <figcaption className="visually-hidden">{summary}</figcaption>
    </figure>
  );
}

export function SaveHistoryTable({ history }: { history: SaveEvent[] }): ReactNode {
  const t = useT();
  const format = useFormat();
  const newestFirst = [...history].reverse();
  return (
    <div className="table-scroll">
      <table className="table table--compact">
        <caption className="visually-hidden">{t('session.history.caption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('session.history.col.at')}</th>
            <th scope="col">{t('session.history.col.mode')}</th>
            <ReportHeaderCells withMessages={false} withDuration />
          </tr>
        </thead>
        <tbody>
          {newestFirst.map((event, index) => (
            <tr key={`${event.at}-${index}`}>
              <th scope="row" className="nowrap">
                <time dateTime={event.at}>{format.dateTime(event.at)}</time>
              </th>
              <td>
                {t(`mode.${event.mode}` as MessageKey)}
                {event.skippedSession && <span className="tag">{t('session.history.skippedSession')}</span>}
                {event.syncDeletes && <span className="tag">{t('session.history.syncDeletes')}</span>}
              </td>
              {DIFF_KINDS.map((kind) => (
                <td key={kind} className="numeric">
                  <DiffCount kind={kind} value={event[kind]} />
                </td>
              ))}
              <td className="diff-column" aria-hidden="true">
                <DiffBar counts={event} />
              </td>
              <td className="numeric">{format.number(event.chunksWritten)}</td>
              <td className="numeric">{format.number(event.embeddingsComputed)}</td>
              <td className="numeric nowrap">{format.duration(event.durationMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
