/**
 * Settings › Connect an assistant: the assistants on this computer, and `connect` for each (the same
 * as `session-memory connect <tool>`), with the CLI as this app starts it.
 */
import os from 'node:os';
import type { AssistantId, AssistantView, McpLaunch } from '../../shared/ipc.js';
import { EngineError } from '../engine/errors.js';
import { ConfigFileError, connectAssistant, listAssistants } from '../connect/connect.js';
import type { HandlersOf } from './handlers.js';

export interface AssistantsHostOptions {
  /** The CLI with this memory's global options (`--data ...`), or null when the host cannot say how it is started. */
  launcher: () => McpLaunch | null;
  /** The home folder, environment and platform whose assistants are set up (tests give a fake home). */
  home?: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

export class AssistantsHost {
  constructor(private readonly options: AssistantsHostOptions) {}

  readonly handlers: HandlersOf<'assistants:list' | 'assistants:connect'> = {
    'assistants:list': async () => this.list(),
    'assistants:connect': async ({ id, remove }) => this.connect(id, Boolean(remove)),
  };

  private place() {
    return { home: this.options.home ?? os.homedir(), env: this.options.env ?? process.env, platform: this.options.platform ?? process.platform };
  }

  async list(): Promise<AssistantView[]> {
    const launcher = this.options.launcher();
    if (!launcher) return [];
    const listed = await listAssistants({ ...this.place(), launcher });
    return listed.map(({ id, name, found, connected }) => ({ id, name, found, connected }));
  }

  async connect(id: AssistantId, remove: boolean): Promise<AssistantView[]> {
    const launcher = this.options.launcher();
    if (!launcher) throw new EngineError('invalid_request', 'this host cannot say how assistants should start session-memory; run `session-memory connect` from the command line');
    try {
      await connectAssistant(id, { ...this.place(), launcher, remove });
    } catch (error) {
      if (error instanceof ConfigFileError) throw new EngineError('invalid_input', error.message);
      throw error;
    }
    return this.list();
  }
}
