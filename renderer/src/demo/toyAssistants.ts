/**
 * The demo's assistants for Settings › Connect an assistant: connected and disconnected in memory
 * (nothing is written: the demo has no disk).
 */
import type { AssistantId, AssistantView } from '../../../shared/ipc.js';
import { HostError } from './toyEngine.js';

export const DEMO_ASSISTANTS: AssistantView[] = [
  { id: 'claude-code', name: 'Claude Code', found: true, connected: false },
  { id: 'codex', name: 'Codex CLI', found: true, connected: false },
  { id: 'gemini-cli', name: 'Gemini CLI', found: false, connected: false },
  { id: 'qwen-code', name: 'Qwen Code', found: false, connected: false },
  { id: 'copilot-cli', name: 'GitHub Copilot CLI', found: false, connected: false },
  { id: 'openclaw', name: 'OpenClaw', found: true, connected: true },
  { id: 'cursor', name: 'Cursor', found: false, connected: false },
  { id: 'claude-desktop', name: 'Claude Desktop', found: false, connected: false },
];

export class ToyAssistants {
  private readonly assistants: AssistantView[];

  constructor(initial: AssistantView[]) {
    this.assistants = initial.map((a) => ({ ...a }));
  }

  list(): AssistantView[] {
    return this.assistants.map((a) => ({ ...a }));
  }

  connect(id: AssistantId, remove: boolean): AssistantView[] {
    const assistant = this.assistants.find((a) => a.id === id);
    if (!assistant) throw new HostError('not_found', `no assistant "${id}"`);
    assistant.connected = !remove;
    return this.list();
  }
}
