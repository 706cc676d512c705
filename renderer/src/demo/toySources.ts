/**
 * The demo's sources: a few assistants' folders as a machine would have them, turned on and off
 * and synced in memory (nothing is read: the demo has no disk).
 */
import type { SourceView } from '../../../shared/ipc.js';
import { HostError } from './toyEngine.js';

export const DEMO_SOURCES: SourceView[] = [
  { id: 'claude-code', tool: 'Claude Code', path: '/home/demo/.claude', sessions: 12, lastModified: '2025-03-02T10:15:00.000Z', enabled: false, imports: true, lastSync: null, sessionsSaved: 0, errors: [] },
  { id: 'openclaw', tool: 'OpenClaw', path: '/home/demo/.openclaw', sessions: 4, lastModified: '2025-03-01T18:40:00.000Z', enabled: false, imports: true, lastSync: null, sessionsSaved: 0, errors: [] },
  { id: 'codex', tool: 'Codex CLI', path: '/home/demo/.codex', sessions: 3, lastModified: '2025-02-27T08:05:00.000Z', enabled: false, imports: false, lastSync: null, sessionsSaved: 0, errors: [] },
];

export class ToySources {
  private readonly sources: SourceView[];

  constructor(
    initial: SourceView[],
    private readonly now: () => Date,
  ) {
    this.sources = initial.map((s) => ({ ...s, errors: [...s.errors] }));
  }

  list(): SourceView[] {
    return this.sources.map((s) => ({ ...s, errors: [...s.errors] }));
  }

  setEnabled(id: string, enabled: boolean): SourceView[] {
    const source = this.sources.find((s) => s.id === id);
    if (!source) throw new HostError('not_found', `no source "${id}" on this computer`);
    source.enabled = enabled;
    return enabled ? this.sync(id) : this.list();
  }

  sync(id?: string): SourceView[] {
    for (const source of this.sources) {
      if (!source.enabled || (id !== undefined && source.id !== id)) continue;
      source.lastSync = this.now().toISOString();
      if (!source.imports) source.errors = [`${source.tool}: this format does not import yet; ${source.sessions} files under ${source.path} left unread`];
    }
    return this.list();
  }
}
