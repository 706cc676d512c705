/**
 * One session: its numbers, what every save did (chart and table), its messages (each with its chunk) and
 * its chunks, and the deliberate "Overwrite from file…".
 */
import { useCallback, useMemo, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { SaveEvent, SessionDetail } from '../../../shared/domain.js';
import { SaveHistoryChart, SaveHistoryTable } from '../components/SaveHistory.js';
import { Icon, Loading, LoadFailed, PageHeader, SourceBadge } from '../components/ui.js';
import { ForgetDialog } from './ForgetDialog.js';
import { VirtualList } from '../components/VirtualList.js';
import { shortId, useFormat } from '../format.js';
import { useT, type MessageKey } from '../i18n.js';
import { useMemoryQuery } from '../memory.js';
import { chunkHref, hrefFor, navigate, sessionHref, type SessionTab } from '../router.js';
import { OverwriteDialog } from './OverwriteDialog.js';

type Message = SessionDetail['messages'][number];
type ChunkSummary = SessionDetail['chunks'][number];

function StatTile({ label, value, detail }: { label: string; value: ReactNode; detail?: ReactNode }): ReactNode {
  return (
    <div className="stat">
      <dt className="stat__label">{label}</dt>
      <dd className="stat__value">{value}</dd>
      {detail && <dd className="stat__detail">{detail}</dd>}
    </div>
  );
}

function MessageRow({ message, index, chunkNumber, onDelete }: { message: Message; index: number; chunkNumber: number; onDelete: (message: Message) => void }): ReactNode {
  const t = useT();
  const format = useFormat();
  return (
    <article className={`message message--${message.role} ${chunkNumber % 2 ? 'message--odd-chunk' : ''}`}>
      <header className="message__meta">
        {/* Who said it: their name where the transcript has one (a chat between people), else the role. */}
        <span className={`role role--${message.role}`} title={message.speaker ? t(`role.${message.role}` as MessageKey) : undefined}>
          {message.speaker ?? t(`role.${message.role}` as MessageKey)}
        </span>
        <span className="muted small mono" title={message.msgId}>
          #{index + 1} · {shortId(message.msgId, 14)}
        </span>
        {message.timestamp && (
          <time className="muted small" dateTime={message.timestamp}>
            {format.dateTime(message.timestamp)}
          </time>
        )}
        {message.chunkId && (
          <a className="chunk-link" href={chunkHref(message.chunkId)} aria-label={t('session.message.openChunk', { id: message.chunkId, index: index + 1 })} title={message.chunkId}>
            <Icon name="chunk" size={13} />
            <span className="mono">{t('session.message.chunk', { id: shortId(message.chunkId, 12) })}</span>
          </a>
        )}
        <button type="button" className="link-button message__delete" onClick={() => onDelete(message)} aria-label={t('session.message.delete', { index: index + 1 })}>
          {t('session.message.deleteShort')}
        </button>
      </header>
      <p className="message__content">{message.content}</p>
    </article>
  );
}

function ChunkRow({ chunk, index }: { chunk: ChunkSummary; index: number }): ReactNode {
  const t = useT();
  const format = useFormat();
  return (
    <article className="chunk-card">
      <header className="chunk-card__meta">
        <span className="chunk-card__number">{index + 1}</span>
        <a href={chunkHref(chunk.chunkId)} className="mono" aria-label={t('session.chunk.inspect', { id: chunk.chunkId })}>
          {chunk.chunkId}
        </a>
        <span className="muted small">{t('session.chunk.messages', { n: chunk.msgIds.length })}</span>
        <time className="muted small" dateTime={chunk.createdAt}>
          {format.dateTime(chunk.createdAt)}
        </time>
      </header>
      <p className="chunk-card__text">{chunk.text}</p>
    </article>
  );
}

function Tabs({ sessionId, tab, counts }: { sessionId: string; tab: SessionTab; counts: Record<SessionTab, number> }): ReactNode {
  const t = useT();
  const format = useFormat();
  const tabs: SessionTab[] = ['messages', 'chunks'];
  const go = (next: SessionTab): void => navigate({ name: 'session', sessionId, tab: next }, { replace: true });
  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const next = tabs[(tabs.indexOf(tab) + (event.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length] ?? 'messages';
    go(next);
    document.getElementById(`tab-${next}`)?.focus();
  };
  return (
    <div className="tabs" role="tablist" aria-label={t('session.tabs')} onKeyDown={onKeyDown}>
      {tabs.map((name) => (
        <button
          key={name}
          id={`tab-${name}`}
          type="button"
          role="tab"
          className="tabs__tab"
          aria-selected={tab === name}
          aria-controls={`panel-${name}`}
          tabIndex={tab === name ? 0 : -1}
          onClick={() => go(name)}
        >
          {t(name === 'messages' ? 'session.tab.messages' : 'session.tab.chunks')}
          <span className="tabs__count">{format.number(counts[name])}</span>
        </button>
      ))}
    </div>
  );
}

export function SessionView({ sessionId, tab }: { sessionId: string; tab: SessionTab }): ReactNode {
  const t = useT();
  const format = useFormat();
  const detail = useMemoryQuery(`session:${sessionId}`, (api) => api['sessions:show']({ sessionId }));
  const history = useMemoryQuery(`history:${sessionId}`, (api) => api['sessions:history']({ sessionId }));
  const [overwriting, setOverwriting] = useState(false);
  const closeOverwrite = useCallback(() => setOverwriting(false), []);
  const [deleting, setDeleting] = useState(false);
  const [deletingMessage, setDeletingMessage] = useState<Message | null>(null);
  const askDeleteMessage = useCallback((message: Message) => setDeletingMessage(message), []);

  const chunkNumbers = useMemo(() => new Map((detail.data?.chunks ?? []).map((chunk, index) => [chunk.chunkId, index])), [detail.data]);
  const getMessageKey = useCallback((message: Message) => message.msgId, []);
  const getChunkKey = useCallback((chunk: ChunkSummary) => chunk.chunkId, []);

  if (!detail.data) {
    return (
      <div className="page">
        <BackLink />
        {detail.status === 'error' ? <LoadFailed onRetry={detail.reload} /> : <Loading />}
      </div>
    );
  }
  const session = detail.data;
  const title = session.title || session.sessionId;
  const saves: SaveEvent[] = history.data ?? [];
  const firstSave = saves[0];
  const lastSave = saves.at(-1);

  return (
    <div className="page">
      <PageHeader
        eyebrow={<BackLink />}
        title={title}
        subtitle={
          <span className="session-meta">
            <SourceBadge source={session.source} />
            <span className="mono muted" title={t('session.id')}>
              {session.sessionId}
            </span>
            {session.forkOf && (
              <span className="muted">
                {t('session.branchedFrom')} <a href={sessionHref(session.forkOf.sessionId)}>{session.forkOf.title}</a> {t('session.branchedAt', { n: session.forkOf.sharedMessages })}
              </span>
            )}
          </span>
        }
        actions={
          <>
            <button type="button" className="button" onClick={() => setOverwriting(true)}>
              <Icon name="file" size={16} />
              {t('session.overwrite')}
            </button>
            <button type="button" className="button button--danger" onClick={() => setDeleting(true)}>
              {t('session.delete')}
            </button>
          </>
        }
      />
      {deletingMessage && (
        <ForgetDialog
          target={{ sessions: [{ sessionId: session.sessionId, title, messageCount: session.messages.length, chunkCount: session.chunks.length }], messageIds: [deletingMessage.msgId] }}
          onClose={() => setDeletingMessage(null)}
          onForgotten={() => {
            setDeletingMessage(null);
            if (session.messages.length === 1) navigate({ name: 'sessions' });
          }}
        />
      )}
      {deleting && (
        <ForgetDialog
          target={{ sessions: [{ sessionId: session.sessionId, title, messageCount: session.messages.length, chunkCount: session.chunks.length }] }}
          onClose={() => setDeleting(false)}
          onForgotten={() => navigate({ name: 'sessions' })}
        />
      )}

      <dl className="stats" aria-label={t('session.stats')}>
        <StatTile label={t('session.stat.messages')} value={format.number(session.messages.length)} />
        <StatTile label={t('session.stat.chunks')} value={format.number(session.chunks.length)} />
        <StatTile label={t('session.stat.saves')} value={history.data ? format.number(saves.length) : '…'} />
        <StatTile
          label={t('session.stat.lastSaved')}
          value={lastSave ? <time dateTime={lastSave.at} title={format.dateTime(lastSave.at)}>{format.relative(lastSave.at)}</time> : t('common.none')}
          detail={firstSave ? t('session.stat.archived', { date: format.date(firstSave.at) }) : undefined}
        />
      </dl>

      <section className="card" aria-labelledby="history-title">
        <header className="card__header">
          <div>
            <h2 id="history-title" className="card__title">
              {t('session.history.title')}
            </h2>
            <p className="card__subtitle">{t('session.history.subtitle')}</p>
          </div>
        </header>
        {history.status === 'error' && !history.data && <LoadFailed onRetry={history.reload} />}
        {history.status === 'loading' && !history.data && <Loading />}
        {history.data && saves.length === 0 && <p className="muted">{t('session.history.empty')}</p>}
        {saves.length > 0 && (
          <>
            <SaveHistoryChart history={saves} />
            <SaveHistoryTable history={saves} />
          </>
        )}
      </section>

      <section className="card card--contents">
        <Tabs sessionId={sessionId} tab={tab} counts={{ messages: session.messages.length, chunks: session.chunks.length }} />
        <div id={`panel-${tab}`} role="tabpanel" aria-labelledby={`tab-${tab}`} className="tabpanel">
          {tab === 'messages' ? (
            session.messages.length === 0 ? (
              <p className="muted">{t('session.messages.empty')}</p>
            ) : (
              <VirtualList
                items={session.messages}
                estimateSize={110}
                getKey={getMessageKey}
                label={t('session.messages.label')}
                renderItem={(message, index) => <MessageRow message={message} index={index} chunkNumber={chunkNumbers.get(message.chunkId) ?? 0} onDelete={askDeleteMessage} />}
              />
            )
          ) : (
            <VirtualList items={session.chunks} estimateSize={150} getKey={getChunkKey} label={t('session.chunks.label')} renderItem={(chunk, index) => <ChunkRow chunk={chunk} index={index} />} />
          )}
        </div>
      </section>

      {overwriting && (
        <OverwriteDialog target={{ sessionId: session.sessionId, title, messageCount: session.messages.length, chunkCount: session.chunks.length }} onClose={closeOverwrite} />
      )}
    </div>
  );
}

function BackLink(): ReactNode {
  const t = useT();
  return (
    <a className="back-link" href={hrefFor({ name: 'sessions' })}>
      <Icon name="back" size={14} />
      {t('session.back')}
    </a>
  );
}
