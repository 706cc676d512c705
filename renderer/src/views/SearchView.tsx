/** Search across all memory; the query lives in the address (#/search?q=…) so back and forward work. */
import { useEffect, useId, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import type { SearchHit } from '../../../shared/domain.js';
import { Highlighted, highlightTerms, snippetAround } from '../highlight.js';
import { Icon, Loading, LoadFailed, PageHeader } from '../components/ui.js';
import { shortId, useFormat } from '../format.js';
import { useT } from '../i18n.js';
import { useMemoryQuery } from '../memory.js';
import { chunkHref, navigate, sessionHref } from '../router.js';

export function SearchView({ query }: { query: string }): ReactNode {
  const t = useT();
  const format = useFormat();
  const inputId = useId();
  const scopeId = useId();
  const [draft, setDraft] = useState(query);
  const [scope, setScope] = useState('');
  useEffect(() => setDraft(query), [query]);

  const sessions = useMemoryQuery('sessions', (api) => api['sessions:list']({}));
  const titles = useMemo(() => new Map((sessions.data ?? []).map((session) => [session.sessionId, session.title || session.sessionId])), [sessions.data]);
  const trimmed = query.trim();
  const results = useMemoryQuery(trimmed ? `search:${scope}:${trimmed}` : null, (api) => api['search:query']({ query: trimmed, limit: 50, ...(scope ? { sessionId: scope } : {}) }));
  const terms = useMemo(() => highlightTerms(trimmed), [trimmed]);

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const next = draft.trim();
    if (next === trimmed) results.reload();
    else navigate({ name: 'search', query: next });
  };

  return (
    <div className="page">
      <PageHeader title={t('search.title')} subtitle={t('search.subtitle')} />
      <form className="search-form" role="search" onSubmit={submit}>
        <div className="field field--grow">
          <label htmlFor={inputId} className="field__label">
            {t('search.label')}
          </label>
          <div className="search-box">
            <Icon name="search" size={18} />
            <input id={inputId} type="search" className="input input--large" value={draft} placeholder={t('search.placeholder')} maxLength={2000} onChange={(event) => setDraft(event.target.value)} />
          </div>
        </div>
        <div className="field">
          <label htmlFor={scopeId} className="field__label">
            {t('search.scope')}
          </label>
          <select id={scopeId} className="input input--large" value={scope} onChange={(event) => setScope(event.target.value)}>
            <option value="">{t('search.scopeAll')}</option>
            {(sessions.data ?? []).map((session) => (
              <option key={session.sessionId} value={session.sessionId}>
                {session.title || session.sessionId}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button button--primary button--large" disabled={!draft.trim()}>
          {t('search.submit')}
        </button>
      </form>

      {!trimmed && <p className="muted hint">{t('search.hint')}</p>}
      {trimmed && results.status === 'loading' && <Loading label={t('search.searching')} />}
      {trimmed && results.status === 'error' && <LoadFailed onRetry={results.reload} />}
      {trimmed && results.status === 'ready' && (
        <section aria-labelledby="search-results-title">
          <h2 id="search-results-title" className="section-title" aria-live="polite">
            {results.data.length === 0 ? t('search.none', { query: trimmed }) : t('search.results', { n: results.data.length, query: trimmed })}
          </h2>
          <ol className="results" aria-label={t('search.resultsLabel')}>
            {results.data.map((hit) => (
              <li key={hit.chunkId} className="result card">
                <header className="result__meta">
                  <span className="score" title={t('search.score', { pct: format.percent(hit.score) })}>
                    <span className="score__bar" aria-hidden="true">
                      <span style={{ width: `${Math.max(0, Math.min(1, hit.score)) * 100}%` }} />
                    </span>
                    {t('search.score', { pct: format.percent(hit.score) })}
                  </span>
                  <a href={sessionHref(hit.sessionId)} className="result__session">
                    {titles.get(hit.sessionId) ?? hit.sessionId}
                  </a>
                  <a href={chunkHref(hit.chunkId)} className="chunk-link" aria-label={t('search.openChunk', { id: hit.chunkId })}>
                    <Icon name="chunk" size={13} />
                    <span className="mono">{shortId(hit.chunkId, 12)}</span>
                  </a>
                </header>
                <p className="result__text">
                  <Highlighted text={snippetAround(hit.text, terms)} terms={terms} />
                </p>
                <AlsoInLine hit={hit} titles={titles} />
              </li>
            ))}
          </ol>
        </section>
      )}
    </div>
  );
}

/** "Also in 2 other sessions": the copies of this memory folded into the result, each linked. */
function AlsoInLine({ hit, titles }: { hit: SearchHit; titles: Map<string, string> }): ReactNode {
  const t = useT();
  const others = [...new Set(hit.alsoIn.map((copy) => copy.sessionId))].filter((sessionId) => sessionId !== hit.sessionId);
  const sameSession = hit.alsoIn.length - hit.alsoIn.filter((copy) => copy.sessionId !== hit.sessionId).length;
  if (others.length === 0 && sameSession === 0) return null;
  return (
    <p className="result__also muted">
      {others.length > 0 ? t('search.alsoIn', { n: others.length }) : t('search.alsoHere', { n: sameSession })}
      {others.length > 0 && ': '}
      {others.map((sessionId, index) => (
        <span key={sessionId}>
          {index > 0 && ', '}
          <a href={sessionHref(sessionId)}>{titles.get(sessionId) ?? sessionId}</a>
        </span>
      ))}
    </p>
  );
}
