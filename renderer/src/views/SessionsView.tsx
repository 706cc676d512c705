/** Every archived session in one table: filter, sort, and an empty state that says what to drop. */
import { useId, useMemo, useRef, useState, type ReactNode } from 'react';
import type { SessionSummary } from '../../../shared/domain.js';
import { Icon, Loading, LoadFailed, PageHeader, SourceBadge } from '../components/ui.js';
import { useFormat } from '../format.js';
import { useLanguage, useT } from '../i18n.js';
import { useImportFlow } from '../importFlow.js';
import { ForgetDialog } from './ForgetDialog.js';
import { useMemoryQuery } from '../memory.js';
import { navigate, sessionHref } from '../router.js';

export type SessionSort = 'lastSaved' | 'title' | 'size';

export function filterAndSortSessions(sessions: SessionSummary[], filter: string, sort: SessionSort, language: string): SessionSummary[] {
  const needle = filter.trim().toLocaleLowerCase();
  const matching = needle
    ? sessions.filter((session) => [session.title, session.source ?? '', session.sessionId].some((field) => field.toLocaleLowerCase().includes(needle)))
    : [...sessions];
  const collator = new Intl.Collator(language, { sensitivity: 'base', numeric: true });
  const compare: Record<SessionSort, (a: SessionSummary, b: SessionSummary) => number> = {
    lastSaved: (a, b) => b.lastSavedAt.localeCompare(a.lastSavedAt),
    title: (a, b) => collator.compare(a.title, b.title),
    size: (a, b) => b.messageCount - a.messageCount || b.chunkCount - a.chunkCount,
  };
  return matching.sort((a, b) => compare[sort](a, b) || a.sessionId.localeCompare(b.sessionId));
}

/** Shown when nothing is archived: what can be dropped, and a button for those who prefer a file picker. */
export function EmptyArchive(): ReactNode {
  const t = useT();
  const flow = useImportFlow();
  const input = useRef<HTMLInputElement>(null);
  return (
    <section className="empty-state" aria-labelledby="empty-archive-title">
      <div className="empty-state__icon">
        <Icon name="memory" size={36} />
      </div>
      <h2 id="empty-archive-title">{t('sessions.empty.title')}</h2>
      <p>{t('sessions.empty.body')}</p>
      <p className="empty-state__formats">{t('sessions.empty.formats')}</p>
      <button type="button" className="button button--primary" onClick={() => input.current?.click()}>
        {t('sessions.empty.choose')}
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        aria-label={t('import.chooseLabel')}
        onChange={(event) => {
          const files = Array.from(event.target.files ?? []);
          event.target.value = '';
          if (files.length > 0) {
            flow.addFiles(files);
            navigate({ name: 'import' });
          }
        }}
      />
    </section>
  );
}

export function SessionsView(): ReactNode {
  const t = useT();
  const format = useFormat();
  const filterId = useId();
  const sortId = useId();
  const sessions = useMemoryQuery('sessions', (api) => api['sessions:list']({}));
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState<SessionSort>('lastSaved');
  const language = useLanguage();
  const shown = useMemo(() => filterAndSortSessions(sessions.data ?? [], filter, sort, language), [sessions.data, filter, sort, language]);
  const titles = useMemo(() => new Map((sessions.data ?? []).map((session) => [session.sessionId, session.title || session.sessionId])), [sessions.data]);
  const all = sessions.data ?? [];
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [deleting, setDeleting] = useState(false);
  // Only sessions that are still listed stay selected (after a delete, a reload, a new store).
  const chosen = filterAndSortSessions(all, '', sort, language).filter((session) => selected.has(session.sessionId));
  const toggle = (sessionId: string): void =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(sessionId)) next.delete(sessionId);
      else next.add(sessionId);
      return next;
    });
  const totals = useMemo(() => all.reduce((sum, session) => ({ messages: sum.messages + session.messageCount, chunks: sum.chunks + session.chunkCount }), { messages: 0, chunks: 0 }), [all]);

  return (
    <div className="page">
      <PageHeader
        title={t('sessions.title')}
        subtitle={sessions.data && all.length > 0 ? t('sessions.summary', { sessions: all.length, messages: totals.messages, chunks: totals.chunks }) : undefined}
      />
      {sessions.status === 'loading' && !sessions.data && <Loading />}
      {sessions.status === 'error' && !sessions.data && <LoadFailed onRetry={sessions.reload} />}
      {sessions.data && all.length === 0 && <EmptyArchive />}
      {sessions.data && all.length > 0 && (
        <>
          <div className="toolbar" role="search">
            <div className="field field--grow">
              <label htmlFor={filterId} className="field__label">
                {t('sessions.filterLabel')}
              </label>
              <input id={filterId} type="search" className="input" value={filter} placeholder={t('sessions.filterPlaceholder')} onChange={(event) => setFilter(event.target.value)} />
            </div>
            <div className="field">
              <label htmlFor={sortId} className="field__label">
                {t('sessions.sortLabel')}
              </label>
              <select id={sortId} className="input" value={sort} onChange={(event) => setSort(event.target.value as SessionSort)}>
                <option value="lastSaved">{t('sessions.sort.lastSaved')}</option>
                <option value="title">{t('sessions.sort.title')}</option>
                <option value="size">{t('sessions.sort.size')}</option>
              </select>
            </div>
            {chosen.length > 0 && (
              <button type="button" className="button button--danger toolbar__action" onClick={() => setDeleting(true)}>
                {t('sessions.deleteSelected', { n: chosen.length })}
              </button>
            )}
          </div>
          {deleting && (
            <ForgetDialog
              target={{ sessions: chosen.map((s) => ({ sessionId: s.sessionId, title: s.title || s.sessionId, messageCount: s.messageCount, chunkCount: s.chunkCount })) }}
              onClose={() => setDeleting(false)}
              onForgotten={() => {
                setDeleting(false);
                setSelected(new Set());
              }}
            />
          )}
          {filter && (
            <p className="muted small" aria-live="polite">
              {t('sessions.shown', { shown: shown.length, total: all.length })}
            </p>
          )}
          {shown.length === 0 ? (
            <div className="empty-inline">
              <p>{t('sessions.noMatch', { query: filter })}</p>
              <button type="button" className="button" onClick={() => setFilter('')}>
                {t('sessions.clearFilter')}
              </button>
            </div>
          ) : (
            <div className="card card--flush table-scroll">
              <table className="table table--sessions">
                <caption className="visually-hidden">{t('sessions.caption')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('sessions.col.title')}</th>
                    <th scope="col">{t('sessions.col.source')}</th>
                    <th scope="col" className="numeric">
                      {t('sessions.col.messages')}
                    </th>
                    <th scope="col" className="numeric">
                      {t('sessions.col.chunks')}
                    </th>
                    <th scope="col" className="numeric">
                      {t('sessions.col.saves')}
                    </th>
                    <th scope="col">{t('sessions.col.lastSaved')}</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((session) => (
                    <tr key={session.sessionId} className="table__row--link" onClick={(event) => {
                      // The whole row is a larger target for the mouse; the title link is the keyboard's.
                      if ((event.target as HTMLElement).closest('a, input')) return;
                      navigate({ name: 'session', sessionId: session.sessionId, tab: 'messages' });
                    }}>
                      <th scope="row" className="cell-title">
                        <input
                          type="checkbox"
                          className="row-select"
                          checked={selected.has(session.sessionId)}
                          onChange={() => toggle(session.sessionId)}
                          aria-label={t('sessions.select', { title: session.title || session.sessionId })}
                        />
                        <a href={sessionHref(session.sessionId)}>{session.title || session.sessionId}</a>
                        <span className="cell-sub mono">{session.sessionId}</span>
                        {session.forkOf && (
                          <span className="cell-sub">
                            {t('sessions.branchedFrom')}{' '}
                            <a href={sessionHref(session.forkOf.sessionId)}>{titles.get(session.forkOf.sessionId) ?? session.forkOf.sessionId}</a>
                          </span>
                        )}
                        {session.parentSessionId && (
                          <span className="cell-sub">
                            {t('sessions.startedFrom')}{' '}
                            <a href={sessionHref(session.parentSessionId)}>{titles.get(session.parentSessionId) ?? session.parentSessionId}</a>
                          </span>
                        )}
                      </th>
                      <td>
                        <SourceBadge source={session.source} />
                      </td>
                      <td className="numeric">{format.number(session.messageCount)}</td>
                      <td className="numeric">{format.number(session.chunkCount)}</td>
                      <td className="numeric">{format.number(session.saves)}</td>
                      <td>
                        <time dateTime={session.lastSavedAt} title={format.dateTime(session.lastSavedAt)}>
                          {format.relative(session.lastSavedAt)}
                        </time>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </div>
  );
}
