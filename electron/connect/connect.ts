/**
 * `session-memory connect <tool>`: writes the tool's MCP server entry and its per-turn hook into the
 * tool's own configuration, merged with what is there. Every file is read and checked before any
 * is written, so a malformed one leaves all of them untouched.
 */
import { existsSync } from 'node:fs';
import type { McpLaunch } from '../../shared/ipc.js';
import type { PlaceContext } from '../sources/catalogue.js';
import { planChanges, writePlans, type EntryChange, type FilePlan } from './configFile.js';
import { ASSISTANTS, assistantById, type AssistantId } from './tools.js';

export { ConfigFileError } from './configFile.js';
export { ASSISTANT_IDS, type AssistantId } from './tools.js';

export interface ConnectOptions extends PlaceContext {
  launcher: McpLaunch;
  remove?: boolean;
  dryRun?: boolean;
  now?: Date;
}

export interface ConnectFileResult {
  file: string;
  changed: boolean;
  /** Where the file was copied before it was changed (absent for a new file, a dry run, or no change). */
  backup?: string;
  entries: EntryChange[];
}

export interface ConnectResult {
  tool: AssistantId;
  name: string;
  action: 'connect' | 'remove';
  dryRun: boolean;
  changed: boolean;
  files: ConnectFileResult[];
  /** What the per-turn save does for this tool, and anything the person must do. */
  notes: string[];
}

export async function connectAssistant(id: AssistantId, options: ConnectOptions): Promise<ConnectResult> {
  const assistant = assistantById(id);
  if (!assistant) throw new Error(`no assistant "${id}"`);
  const remove = Boolean(options.remove);
  const context = { env: options.env, platform: options.platform, home: options.home, launcher: options.launcher };
  const plans: FilePlan[] = await assistant.plan(context, remove);
  // What a remove undoes outside the files (Codex's trust of the hook) is read while the hook is still there.
  const followUp = remove && assistant.beforeRemove ? await assistant.beforeRemove(context, plans) : undefined;
  const backups = options.dryRun ? new Map<string, string>() : await writePlans(plans, options.now);
  const files = plans.map((plan) => ({
    file: plan.file,
    changed: planChanges(plan),
    ...(backups.has(plan.file) ? { backup: backups.get(plan.file)! } : {}),
    entries: plan.entries.filter((e) => planChanges(plan) || e.before !== null || e.after !== null),
  }));
  const after = remove
    ? followUp === undefined
      ? { changed: false, notes: [] }
      : options.dryRun
        ? followUp.pending
        : await followUp.run()
    : !options.dryRun && assistant.afterConnect
      ? await assistant.afterConnect(context)
      : { changed: false, notes: [] };
  const notes = [...plans.flatMap((p) => p.notes ?? []), ...(remove ? [] : [`${assistant.name} ${assistant.perTurn}`]), ...after.notes];
  return { tool: id, name: assistant.name, action: remove ? 'remove' : 'connect', dryRun: Boolean(options.dryRun), changed: plans.some(planChanges) || after.changed, files, notes };
}

export interface AssistantPresence {
  id: AssistantId;
  name: string;
  /** The tool's configuration folder exists on this computer. */
  found: boolean;
  /** Our MCP entry and hook are in its configuration as this install would write them. */
  connected: boolean;
  folder: string;
  perTurn: string;
}

/** Each tool, whether it is on this computer and whether it is connected (a dry run of `connect`: nothing written). */
export async function listAssistants(options: Omit<ConnectOptions, 'remove' | 'dryRun'>): Promise<AssistantPresence[]> {
  const context = { env: options.env, platform: options.platform, home: options.home };
  return Promise.all(
    ASSISTANTS.map(async (assistant) => {
      const folder = assistant.folder(context);
      let connected = false;
      try {
        const plans = await assistant.plan({ ...context, launcher: options.launcher }, false);
        connected = !plans.some(planChanges);
      } catch {
        connected = false;
      }
      return { id: assistant.id, name: assistant.name, found: existsSync(folder), connected, folder, perTurn: assistant.perTurn };
    }),
  );
}

/** What `connect` prints: one line per entry changed, with the entry before and after on a dry run. */
export function describeConnect(result: ConnectResult): string[] {
  const lines: string[] = [];
  const verb = result.action === 'remove' ? 'disconnected' : 'connected';
  if (!result.changed) lines.push(`${result.name}: already ${verb}; nothing changed`);
  else lines.push(`${result.name}: ${result.dryRun ? `would be ${verb} (dry run: nothing written)` : verb}`);
  for (const file of result.files) {
    if (!file.changed) continue;
    lines.push(`  ${file.file}${file.backup ? ` (backup: ${file.backup})` : ''}`);
    for (const entry of file.entries) {
      if (JSON.stringify(entry.before) === JSON.stringify(entry.after)) continue;
      if (!result.dryRun) {
        lines.push(`    ${entry.after === null ? '-' : entry.before === null ? '+' : '~'} ${entry.entry}`);
        continue;
      }
      lines.push(`    ${entry.entry}`);
      lines.push(`      before: ${entry.before === null ? '(none)' : JSON.stringify(entry.before)}`);
      lines.push(`      after:  ${entry.after === null ? '(none)' : JSON.stringify(entry.after)}`);
    }
  }
  for (const note of result.notes) lines.push(`  ${note}`);
  return lines;
}
