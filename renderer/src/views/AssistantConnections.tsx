/**
 * Settings › Connect an assistant, one click each: the assistants found on this computer, each with
 * a Connect / Disconnect button that writes (or takes out) this memory's MCP server and per-turn
 * hook in the assistant's own configuration, as `session-memory connect <tool>` does.
 */
import { useState, type ReactNode } from 'react';
import type { AssistantId, AssistantView } from '../../../shared/ipc.js';
import { useReportError } from '../alerts.js';
import { useT } from '../i18n.js';
import { useApi, useMemoryQuery } from '../memory.js';

export function AssistantConnections(): ReactNode {
  const t = useT();
  const api = useApi();
  const reportError = useReportError();
  const listing = useMemoryQuery('assistants', (memory) => memory['assistants:list']({}));
  const [shown, setShown] = useState<AssistantView[] | null>(null);
  const [busy, setBusy] = useState<AssistantId | null>(null);
  const found = (shown ?? listing.data)?.filter((a) => a.found);

  const act = async (id: AssistantId, remove: boolean): Promise<void> => {
    setBusy(id);
    try {
      setShown(await api['assistants:connect']({ id, remove }));
    } catch (error) {
      reportError(error);
    } finally {
      setBusy(null);
    }
  };

  if (!found) return null;
  if (found.length === 0) return <p className="muted">{t('settings.assistants.none')}</p>;
  return (
    <ul className="assistants" aria-label={t('settings.assistants.label')}>
      {found.map((assistant) => (
        <li key={assistant.id} className="assistant">
          <div>
            <strong>{assistant.name}</strong> <span className={assistant.connected ? 'badge badge--ok' : 'badge'}>{t(assistant.connected ? 'settings.assistants.connected' : 'settings.assistants.notConnected')}</span>
            {assistant.connected && <p className="field__hint">{t(`settings.assistants.perTurn.${assistant.id}`)}</p>}
          </div>
          <button
            type="button"
            className="button button--small"
            disabled={busy !== null}
            aria-label={t(assistant.connected ? 'settings.assistants.disconnectTool' : 'settings.assistants.connectTool', { tool: assistant.name })}
            onClick={() => void act(assistant.id, assistant.connected)}
          >
            {busy === assistant.id ? t('settings.assistants.working') : t(assistant.connected ? 'settings.assistants.disconnect' : 'settings.assistants.connect')}
          </button>
        </li>
      ))}
    </ul>
  );
}
