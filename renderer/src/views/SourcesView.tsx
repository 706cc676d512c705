/**
 * Sources: the places on this computer where assistants keep their conversations (Claude Code,
 * OpenClaw, Codex CLI...), each turned on or off by the person. Nothing is read from a source
 * until it is on; while the app runs, those that are on are saved as they grow. Each row says what
 * was found, when it was last synced, what it saved and what went wrong.
 */
import { useState, type ReactNode } from 'react';
import type { SourceView } from '../../../shared/ipc.js';
import { useReportError } from '../alerts.js';
import { Loading, LoadFailed, PageHeader } from '../components/ui.js';
import { useFormat } from '../format.js';
import { useT } from '../i18n.js';
import { useApi, useMemoryQuery, useStoreVersion } from '../memory.js';

export function SourcesView(): ReactNode {
  const t = useT();
  const api = useApi();
  const reportError = useReportError();
  const { storeChanged } = useStoreVersion();
  const listing = useMemoryQuery('sources', (memory) => memory['sources:list']({}));
  const [shown, setShown] = useState<SourceView[] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const sources = shown ?? listing.data;

  const act = async (id: string, job: () => Promise<SourceView[]>): Promise<void> => {
    setBusy(id);
    try {
      setShown(await job());
      storeChanged();
    } catch (error) {
      reportError(error);
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="page">
      <PageHeader
        title={t('sources.title')}
        subtitle={t('sources.subtitle')}
        actions={
          sources && sources.some((s) => s.enabled) ? (
            <button type="button" className="button" disabled={busy !== null} onClick={() => void act('*', () => api['sources:sync']({}))}>
              {busy === '*' ? t('sources.syncing') : t('sources.syncNow')}
            </button>
          ) : undefined
        }
      />
      <p className="muted hint">{t('sources.privacy')}</p>
      {listing.status === 'loading' && !sources && <Loading label={t('sources.loading')} />}
      {listing.status === 'error' && <LoadFailed onRetry={listing.reload} />}
      {sources && sources.length === 0 && <p className="muted">{t('sources.none')}</p>}
      {sources && sources.length > 0 && (
        <ul className="results" aria-label={t('sources.listLabel')}>
          {sources.map((source) => (
            <SourceRow key={source.id} source={source} busy={busy === source.id} onToggle={(enabled) => void act(source.id, () => api['sources:set']({ id: source.id, enabled }))} />
          ))}
        </ul>
      )}
    </div>
  );
}

function SourceRow({ source, busy, onToggle }: { source: SourceView; busy: boolean; onToggle: (enabled: boolean) => void }): ReactNode {
  const t = useT();
  const format = useFormat();
  const titleId = `source-${source.id}`;
  return (
    <li className="card source" aria-labelledby={titleId}>
      <div className="source__head">
        <h2 id={titleId} className="card__title">
          {source.tool}
        </h2>
        <label className="checkbox">
          <input type="checkbox" checked={source.enabled} disabled={busy} onChange={(event) => onToggle(event.target.checked)} aria-describedby={`${titleId}-path`} />
          {t('sources.enabled', { tool: source.tool })}
        </label>
      </div>
      <p id={`${titleId}-path`} className="mono muted">
        {source.path}
      </p>
      <p>
        {t('sources.found', { n: source.sessions })}
        {source.lastModified && <span className="muted"> · {t('sources.changed', { when: format.relative(source.lastModified) })}</span>}
      </p>
      {!source.imports && <p className="muted">{t('sources.notYet')}</p>}
      {source.enabled && (
        <p className="muted">
          {busy ? t('sources.syncing') : source.lastSync ? t('sources.lastSync', { when: format.relative(source.lastSync), n: source.sessionsSaved }) : t('sources.neverSynced')}
        </p>
      )}
      {source.errors.length > 0 && (
        <ul className="source__errors" aria-label={t('sources.errors', { tool: source.tool })}>
          {source.errors.map((error) => (
            <li key={error} className="error-text">
              {error}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
