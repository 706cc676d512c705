/**
 * "Delete": forgetting sessions, or messages of one session, after a confirmation that names what
 * goes and says it cannot be undone. The store keeps no copy of what is forgotten.
 */
import { useState, type ReactNode } from 'react';
import { useReportError } from '../alerts.js';
import { Modal } from '../components/Modal.js';
import { useT } from '../i18n.js';
import { useApi, useStoreVersion } from '../memory.js';

export interface ForgetTarget {
  sessions: Array<{ sessionId: string; title: string; messageCount: number; chunkCount: number }>;
  /** Only these messages of the one session named. */
  messageIds?: string[];
}

export function ForgetDialog({ target, onClose, onForgotten }: { target: ForgetTarget; onClose: () => void; onForgotten: () => void }): ReactNode {
  const t = useT();
  const api = useApi();
  const report = useReportError();
  const { storeChanged } = useStoreVersion();
  const [busy, setBusy] = useState(false);
  const one = target.sessions.length === 1 ? target.sessions[0]! : null;
  const title = target.messageIds ? t('forget.messagesTitle', { n: target.messageIds.length }) : one ? t('forget.sessionTitle', { title: one.title }) : t('forget.sessionsTitle', { n: target.sessions.length });

  const confirm = async (): Promise<void> => {
    setBusy(true);
    try {
      await api['sessions:forget']({ sessionIds: target.sessions.map((s) => s.sessionId), ...(target.messageIds ? { messageIds: target.messageIds } : {}) });
      storeChanged();
      onForgotten();
    } catch (error) {
      report(error);
      setBusy(false);
    }
  };

  return (
    <Modal
      title={title}
      onClose={onClose}
      closable={!busy}
      footer={
        <>
          <button type="button" className="button" onClick={onClose} disabled={busy}>
            {t('common.cancel')}
          </button>
          <button type="button" className="button button--danger" onClick={() => void confirm()} disabled={busy}>
            {busy ? t('forget.working') : t('forget.confirm')}
          </button>
        </>
      }
    >
      {target.messageIds && one ? (
        <p>{t('forget.messagesText', { n: target.messageIds.length, title: one.title })}</p>
      ) : (
        <ul className="forget-list">
          {target.sessions.map((s) => (
            <li key={s.sessionId}>
              <strong>{s.title}</strong> <span className="muted">{t('forget.counts', { messages: s.messageCount, chunks: s.chunkCount })}</span>
            </li>
          ))}
        </ul>
      )}
      <p className="small muted">{t('forget.explain')}</p>
    </Modal>
  );
}
