/**
 * The chunk inspector: the text that was embedded, which messages it holds, the model, a picture of the
 * vector, and the chunks nearest to it elsewhere in the store (near-duplicates show up here).
 */
import { useMemo, type ReactNode } from 'react';
import type { ChunkDetail } from '../../../shared/domain.js';
import { Icon, Loading, LoadFailed, PageHeader } from '../components/ui.js';
import { shortId, useFormat } from '../format.js';
import { useT } from '../i18n.js';
import { useMemoryQuery } from '../memory.js';
import { chunkHref, sessionHref } from '../router.js';

const GRID_COLUMNS = 32;
const CELL = 10;

/** Each value one cell, blue below zero, red above, stronger further from zero (scaled to the largest value). */
export function EmbeddingGrid({ vector }: { vector: number[] }): ReactNode {
  const t = useT();
  const format = useFormat();
  const stats = useMemo(() => {
    let min = Infinity;
    let max = -Infinity;
    let squares = 0;
    for (const value of vector) {
      min = Math.min(min, value);
      max = Math.max(max, value);
      squares += value * value;
    }
    return { min: vector.length ? min : 0, max: vector.length ? max : 0, norm: Math.sqrt(squares), scale: Math.max(Math.abs(min), Math.abs(max)) || 1 };
  }, [vector]);
  const rows = Math.ceil(vector.length / GRID_COLUMNS);
  const round = (value: number): string => value.toFixed(3);
  return (
    <figure className="embedding">
      <svg
        className="embedding__grid"
        viewBox={`0 0 ${GRID_COLUMNS * CELL} ${rows * CELL}`}
        role="img"
        aria-label={t('chunk.embeddingLabel', { n: vector.length, min: round(stats.min), max: round(stats.max), norm: round(stats.norm) })}
        preserveAspectRatio="xMidYMid meet"
      >
        {vector.map((value, index) => {
          const strength = Math.min(1, Math.abs(value) / stats.scale);
          return (
            <rect
              key={index}
              x={(index % GRID_COLUMNS) * CELL}
              y={Math.floor(index / GRID_COLUMNS) * CELL}
              width={CELL - 1}
              height={CELL - 1}
              rx={1.5}
              fill={value >= 0 ? 'var(--embedding-positive)' : 'var(--embedding-negative)'}
              fillOpacity={0.08 + 0.92 * Math.sqrt(strength)}
            >
              <title>{`${index}: ${value.toFixed(4)}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption className="embedding__legend">
        <span className="embedding__scale" aria-hidden="true">
          <span className="embedding__swatch embedding__swatch--negative" />
          {round(stats.min)}
        </span>
        <span>{t('chunk.embeddingLegend', { n: format.number(vector.length) })}</span>
        <span className="embedding__scale" aria-hidden="true">
          {round(stats.max)}
          <span className="embedding__swatch embedding__swatch--positive" />
        </span>
      </figcaption>
    </figure>
  );
}

function Details({ chunk, sessionTitle }: { chunk: ChunkDetail; sessionTitle: string }): ReactNode {
  const t = useT();
  const format = useFormat();
  const first = chunk.msgIds[0];
  const last = chunk.msgIds.at(-1);
  return (
    <dl className="details">
      <div>
        <dt>{t('chunk.session')}</dt>
        <dd>
          <a href={sessionHref(chunk.sessionId)}>{sessionTitle}</a>
        </dd>
      </div>
      <div>
        <dt>{t('chunk.created')}</dt>
        <dd>
          <time dateTime={chunk.createdAt}>{format.dateTime(chunk.createdAt)}</time>
        </dd>
      </div>
      <div>
        <dt>{t('chunk.model')}</dt>
        <dd className="mono">{chunk.model}</dd>
      </div>
      <div>
        <dt>{t('chunk.range')}</dt>
        <dd className="mono">{first && last ? t('chunk.rangeValue', { first, last, n: chunk.msgIds.length }) : t('common.none')}</dd>
      </div>
      <div className="details__wide">
        <dt>{t('chunk.msgIds')}</dt>
        <dd>
          <ul className="id-list">
            {chunk.msgIds.map((msgId, index) => (
              <li key={`${msgId}-${index}`} className="mono">
                {msgId}
              </li>
            ))}
          </ul>
        </dd>
      </div>
    </dl>
  );
}

export function ChunkView({ chunkId }: { chunkId: string }): ReactNode {
  const t = useT();
  const format = useFormat();
  const chunk = useMemoryQuery(`chunk:${chunkId}`, (api) => api['chunks:inspect']({ chunkId, similar: 8 }));
  const sessions = useMemoryQuery('sessions', (api) => api['sessions:list']({}));
  const titles = useMemo(() => new Map((sessions.data ?? []).map((session) => [session.sessionId, session.title || session.sessionId])), [sessions.data]);

  if (!chunk.data) {
    return <div className="page">{chunk.status === 'error' ? <LoadFailed onRetry={chunk.reload} /> : <Loading />}</div>;
  }
  const data = chunk.data;
  const sessionTitle = titles.get(data.sessionId) ?? data.sessionId;
  return (
    <div className="page">
      <PageHeader
        eyebrow={
          <a className="back-link" href={sessionHref(data.sessionId, 'chunks')}>
            <Icon name="back" size={14} />
            {sessionTitle}
          </a>
        }
        title={
          <>
            {t('chunk.title')} <span className="mono title-id">{data.chunkId}</span>
          </>
        }
      />
      <div className="chunk-layout">
        <div className="stack">
          <section className="card" aria-labelledby="chunk-text-title">
            <h2 id="chunk-text-title" className="card__title">
              {t('chunk.text')}
            </h2>
            <p className="chunk-text">{data.text}</p>
          </section>
          <section className="card" aria-labelledby="chunk-similar-title">
            <h2 id="chunk-similar-title" className="card__title">
              {t('chunk.similar')}
            </h2>
            {data.similar.length === 0 ? (
              <p className="muted">{t('chunk.similar.none')}</p>
            ) : (
              <ol className="similar-list">
                {data.similar.map((hit) => (
                  <li key={hit.chunkId} className="similar">
                    <div className="similar__score" aria-label={t('chunk.similar.score', { pct: format.percent(hit.score) })}>
                      <span className="similar__bar" style={{ width: `${Math.max(0, Math.min(1, hit.score)) * 100}%` }} aria-hidden="true" />
                      <span className="similar__pct">{format.percent(hit.score)}</span>
                    </div>
                    <div className="similar__body">
                      <a href={chunkHref(hit.chunkId)} className="similar__link" aria-label={t('chunk.inspect', { id: hit.chunkId })}>
                        <span className="mono">{shortId(hit.chunkId, 14)}</span>
                      </a>
                      <span className="muted small">
                        {hit.sessionId === data.sessionId ? t('chunk.similar.sameSession') : <a href={sessionHref(hit.sessionId)}>{titles.get(hit.sessionId) ?? hit.sessionId}</a>}
                      </span>
                      <p className="similar__text">{hit.text}</p>
                    </div>
                  </li>
                ))}
              </ol>
            )}
          </section>
        </div>
        <div className="stack">
          <section className="card" aria-labelledby="chunk-details-title">
            <h2 id="chunk-details-title" className="card__title">
              {t('chunk.details')}
            </h2>
            <Details chunk={data} sessionTitle={sessionTitle} />
          </section>
          <section className="card" aria-labelledby="chunk-embedding-title">
            <h2 id="chunk-embedding-title" className="card__title">
              {t('chunk.embedding')}
            </h2>
            <EmbeddingGrid vector={data.vector} />
          </section>
        </div>
      </div>
    </div>
  );
}
