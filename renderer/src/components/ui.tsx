/** Small building blocks every view uses: headers, loading and empty states, progress, badges, icons. */
import type { ReactNode } from 'react';
import { useFormat } from '../format.js';
import { useT, type MessageKey } from '../i18n.js';

/** The four things a save can do to a message, in the order every table and chart shows them. */
export const DIFF_KINDS = ['new', 'updated', 'skipped', 'deleted'] as const;
export type DiffKind = (typeof DIFF_KINDS)[number];
export const STAT_KEYS: Record<DiffKind, MessageKey> = { new: 'stat.new', updated: 'stat.updated', skipped: 'stat.skipped', deleted: 'stat.deleted' };

export function PageHeader({ title, subtitle, actions, eyebrow }: { title: ReactNode; subtitle?: ReactNode; actions?: ReactNode; eyebrow?: ReactNode }): ReactNode {
  return (
    <header className="page-header">
      <div className="page-header__text">
        {eyebrow && <div className="page-header__eyebrow">{eyebrow}</div>}
        <h1 className="page-header__title">{title}</h1>
        {subtitle && <p className="page-header__subtitle">{subtitle}</p>}
      </div>
      {actions && <div className="page-header__actions">{actions}</div>}
    </header>
  );
}

export function Loading({ label }: { label?: string }): ReactNode {
  const t = useT();
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label ?? t('common.loading')}
    </div>
  );
}

export function LoadFailed({ onRetry }: { onRetry: () => void }): ReactNode {
  const t = useT();
  return (
    <div className="load-failed">
      <p>{t('errors.loadFailed')}</p>
      <button type="button" className="button" onClick={onRetry}>
        {t('common.retry')}
      </button>
    </div>
  );
}

export function ProgressBar({ value, label, valueText }: { value: number | null; label: string; valueText?: string }): ReactNode {
  const percent = value === null ? null : Math.round(Math.max(0, Math.min(1, value)) * 100);
  return (
    <div
      className={`progress${percent === null ? ' progress--indeterminate' : ''}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      {...(percent === null ? {} : { 'aria-valuenow': percent })}
      {...(valueText ? { 'aria-valuetext': valueText } : {})}
    >
      <div className="progress__fill" style={percent === null ? undefined : { width: `${percent}%` }} />
    </div>
  );
}

export function SourceBadge({ source }: { source: string | undefined }): ReactNode {
  const format = useFormat();
  return (
    <span className="badge" data-source={source ?? 'unknown'}>
      {format.source(source)}
    </span>
  );
}

/** The four counts of a save as one small stacked bar (decorative: the numbers are always shown next to it). */
export function DiffBar({ counts }: { counts: { new: number; updated: number; skipped: number; deleted: number } }): ReactNode {
  const total = counts.new + counts.updated + counts.skipped + counts.deleted;
  if (total === 0) return <span className="diff-bar diff-bar--empty" aria-hidden="true" />;
  return (
    <span className="diff-bar" aria-hidden="true">
      {(['new', 'updated', 'skipped', 'deleted'] as const).map((kind) =>
        counts[kind] > 0 ? <span key={kind} className={`diff-bar__part diff-bar__part--${kind}`} style={{ flexGrow: counts[kind] }} /> : null,
      )}
    </span>
  );
}

/** A count with its label, coloured like the chart series of the same kind. */
export function DiffCount({ kind, value }: { kind: 'new' | 'updated' | 'skipped' | 'deleted'; value: number }): ReactNode {
  const format = useFormat();
  return <span className={`count count--${kind}${value === 0 ? ' count--zero' : ''}`}>{format.number(value)}</span>;
}

const ICON_PATHS = {
  sessions: 'M4 5h16M4 12h16M4 19h10',
  search: 'M11 4a7 7 0 1 1 0 14 7 7 0 0 1 0-14Zm9 16-4.2-4.2',
  import: 'M12 3v12m0 0-4.5-4.5M12 15l4.5-4.5M4 17v2a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-2',
  settings:
    'M12 9a3 3 0 1 1 0 6 3 3 0 0 1 0-6Zm7.4 3a7.4 7.4 0 0 0-.1-1.2l2-1.6-2-3.4-2.4 1a7.5 7.5 0 0 0-2-1.2L14.5 2h-5l-.4 2.6a7.5 7.5 0 0 0-2 1.2l-2.4-1-2 3.4 2 1.6a7.4 7.4 0 0 0 0 2.4l-2 1.6 2 3.4 2.4-1a7.5 7.5 0 0 0 2 1.2l.4 2.6h5l.4-2.6a7.5 7.5 0 0 0 2-1.2l2.4 1 2-3.4-2-1.6c.1-.4.1-.8.1-1.2Z',
  back: 'M15 5l-7 7 7 7',
  file: 'M6 3h8l4 4v14H6zM14 3v4h4',
  chunk: 'M4 4h7v7H4zM13 4h7v7h-7zM4 13h7v7H4zM13 13h7v7h-7z',
  duplicates: 'M8 8h11v11H8zM5 16V5h11',
  sources: 'M4 6h16M4 12h16M4 18h16M8 4v4m8 2v4m-6 2v4',
  sun: 'M12 8a4 4 0 1 1 0 8 4 4 0 0 1 0-8ZM12 2v2m0 16v2M4.9 4.9l1.4 1.4m11.4 11.4 1.4 1.4M2 12h2m16 0h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4',
  moon: 'M20 14.5A8 8 0 0 1 9.5 4a8 8 0 1 0 10.5 10.5Z',
  arrow: 'M5 12h14m-5-5 5 5-5 5',
  alert: 'M12 4 2.5 20h19L12 4Zm0 6v4.5m0 3v.01',
  memory: 'M12 3c-4 0-7 1.3-7 3v12c0 1.7 3 3 7 3s7-1.3 7-3V6c0-1.7-3-3-7-3Zm-7 3c0 1.7 3 3 7 3s7-1.3 7-3M5 12c0 1.7 3 3 7 3s7-1.3 7-3',
} as const;

export function Icon({ name, size = 18 }: { name: keyof typeof ICON_PATHS; size?: number }): ReactNode {
  return (
    <svg className="icon" viewBox="0 0 24 24" width={size} height={size} aria-hidden="true" focusable="false">
      <path d={ICON_PATHS[name]} fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
