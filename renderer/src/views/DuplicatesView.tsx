/**
 * Duplicates: the same memory kept by more than one session (pasted notes, a conversation imported
 * from two apps), the same text or nearly, as clusters kept up to date by every save. Each can be
 * opened, dismissed (it stays dismissed), or resolved by deleting a session that holds a copy.
 */
import { useId, useMemo, useState, type ReactNode } from 'react';
import { DUPLICATE_THRESHOLD, NEAR_DUPLICATE_FLOOR, type DuplicateCluster } from '../../../shared/domain.js';
import { useReportError } from '../alerts.js';
import { Icon, Loading, LoadFailed, PageHeader } from '../components/ui.js';
import { shortId, useFormat } from '../format.js';
import { useT } from '../i18n.js';
import { useApi, useMemoryQuery } from '../memory.js';
import { chunkHref, sessionHref } from '../router.js';
import { ForgetDialog, type ForgetTarget } from './ForgetDialog.js';

const THRESHOLDS = [NEAR_DUPLICATE_FLOOR, DUPLICATE_THRESHOLD, 0.97, 0.99, 1] as const;

export function DuplicatesView(): ReactNode {
  const t = useT();
  const thresholdId = useId();
  const [threshold, setThreshold] = useState<number>(DUPLICATE_THRESHOLD);
  const [showDismissed, setShowDismissed] = useState(false);
  const [forget, setForget] = useState<ForgetTarget | null>(null);
  const listing = useMemoryQuery(`duplicates:${threshold}:${showDismissed}`, (api) => api['duplicates:list']({ threshold, limit: 200, includeDismissed: showDismissed }));
  const sessions = useMemoryQuery('sessions', (api) => api['sessions:list']({}));
  const counts = useMemo(() => new Map((sessions.data ?? []).map((s) => [s.sessionId, s])), [sessions.data]);

  const askForget = (sessionId: string, title: string): void => {
    const summary = counts.get(sessionId);
    setForget({ sessions: [{ sessionId, title: title || sessionId, messageCount: summary?.messageCount ?? 0, chunkCount: summary?.chunkCount ?? 0 }] });
  };

  return (
    <div className="page">
      <PageHeader title={t('duplicates.title')} subtitle={t('duplicates.subtitle')} />
      <div className="toolbar">
        <div className="field">
          <label htmlFor={thresholdId} className="field__label">
            {t('duplicates.threshold')}
          </label>
          <select id={thresholdId} className="input" value={threshold} onChange={(event) => setThreshold(Number(event.target.value))}>
            {THRESHOLDS.map((value) => (
              <option key={value} value={value}>
                {value === 1 ? t('duplicates.identicalOnly') : t('duplicates.atLeast', { pct: Math.round(value * 100) })}
              </option>
            ))}
          </select>
        </div>
        <label className="checkbox">
          <input type="checkbox" checked={showDismissed} onChange={(event) => setShowDismissed(event.target.checked)} />
          {t('duplicates.showDismissed')}
        </label>
      </div>

      {listing.status === 'loading' && !listing.data && <Loading label={t('duplicates.loading')} />}
      {listing.status === 'error' && <LoadFailed onRetry={listing.reload} />}
      {listing.data && (
        <section aria-labelledby="duplicates-count">
          <h2 id="duplicates-count" className="section-title" aria-live="polite">
            {listing.data.total === 0 ? t('duplicates.none') : t('duplicates.count', { n: listing.data.total })}
            {listing.data.dismissed > 0 && <span className="muted"> · {t('duplicates.dismissedCount', { n: listing.data.dismissed })}</span>}
          </h2>
          {listing.data.total === 0 && <p className="muted hint">{t('duplicates.noneHint')}</p>}
          <ol className="results" aria-label={t('duplicates.listLabel')}>
            {listing.data.clusters.map((cluster) => (
              <ClusterCard key={cluster.id} cluster={cluster} threshold={threshold} onDismissed={listing.reload} onForget={askForget} />
            ))}
          </ol>
          {listing.data.clusters.length < listing.data.total + (showDismissed ? listing.data.dismissed : 0) && <p className="muted">{t('duplicates.more', { n: listing.data.clusters.length })}</p>}
        </section>
      )}
      {forget && (
        <ForgetDialog
          target={forget}
          onClose={() => setForget(null)}
          onForgotten={() => {
            setForget(null);
            listing.reload();
          }}
        />
      )}
    </div>
  );
}

function ClusterCard({ cluster, threshold, onDismissed, onForget }: { cluster: DuplicateCluster; threshold: number; onDismissed: () => void; onForget: (sessionId: string, title: string) => void }): ReactNode {
  const t = useT();
  const format = useFormat();
  const api = useApi();
  const report = useReportError();
  const [busy, setBusy] = useState(false);
  const sessionCount = new Set(cluster.chunks.map((c) => c.sessionId)).size;
  const titleId = `cluster-${cluster.id}`;

  const dismiss = async (): Promise<void> => {
    setBusy(true);
    try {
      await api['duplicates:dismiss']({ clusterId: cluster.id, threshold });
      onDismissed();
    } catch (error) {
      report(error);
      setBusy(false);
    }
  };

  return (
    <li className="result card duplicate" aria-labelledby={titleId}>
      <header className="result__meta">
        <h3 id={titleId} className="duplicate__title">
          {cluster.similarity >= 1 ? t('duplicates.identical') : t('duplicates.similar', { pct: format.percentPrecise(cluster.similarity) })}
          <span className="muted"> · {t('duplicates.where', { chunks: cluster.chunks.length, sessions: sessionCount })}</span>
          {cluster.dismissed && <span className="badge">{t('duplicates.dismissed')}</span>}
        </h3>
        {!cluster.dismissed && (
          <button type="button" className="button button--small" disabled={busy} onClick={() => void dismiss()}>
            {t('duplicates.dismiss')}
          </button>
        )}
      </header>
      <ul className="duplicate__copies">
        {cluster.chunks.map((chunk) => (
          <li key={chunk.chunkId} className="duplicate__copy">
            <div className="duplicate__where">
              <a href={sessionHref(chunk.sessionId)} className="result__session">
                {chunk.sessionTitle || chunk.sessionId}
              </a>
              <a href={chunkHref(chunk.chunkId)} className="chunk-link" aria-label={t('search.openChunk', { id: chunk.chunkId })}>
                <Icon name="chunk" size={13} />
                <span className="mono">{shortId(chunk.chunkId, 12)}</span>
              </a>
              <button type="button" className="button button--small button--danger-quiet duplicate__forget" onClick={() => onForget(chunk.sessionId, chunk.sessionTitle)}>
                {t('duplicates.forgetSession')}
              </button>
            </div>
            <p className="result__text duplicate__text">{chunk.text}</p>
          </li>
        ))}
      </ul>
    </li>
  );
}
