/**
 * The hooks' log: what `session-memory hook` did after each turn (saved, nothing new, handed to the
 * app, failed), in `<data folder>/logs/hooks.log` beside the app's log, as JSON lines in the app
 * log's shape (pino's: level 30 info, 40 warn, 50 error; time; pid; msg). The assistant that runs a
 * hook shows what the hook prints, so the hook prints nothing and a person reads this instead.
 *
 * Written with a plain append rather than the app's pino and rotating-file-stream: those take about
 * 90 ms to load, most of what a hook with nothing new may take. At 1 MB the file is moved to
 * hooks.1.log (one older file kept), so it never grows without bound. A forget scrubs this file
 * like the app's log (every file in the log folder).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { LOG_FOLDER } from '../engine/files/index.js';

export const HOOK_LOG_FILE = 'hooks.log';
const MAX_BYTES = 1 << 20;

export type HookLogLevel = 'info' | 'warn' | 'error';
const LEVELS: Record<HookLogLevel, number> = { info: 30, warn: 40, error: 50 };

export interface HookLogLine {
  level: HookLogLevel;
  msg: string;
}

/** Appends the lines; never throws (a log that cannot be written must not fail the assistant's turn). */
export async function appendHookLog(dataDir: string, lines: readonly HookLogLine[]): Promise<void> {
  if (lines.length === 0) return;
  try {
    const dir = path.join(dataDir, LOG_FOLDER);
    const file = path.join(dir, HOOK_LOG_FILE);
    await fs.mkdir(dir, { recursive: true });
    const size = await fs.stat(file).then((s) => s.size, () => 0);
    if (size > MAX_BYTES) await fs.rename(file, path.join(dir, 'hooks.1.log')).catch(() => {});
    const time = new Date().toISOString();
    const text = lines.map((l) => `${JSON.stringify({ level: LEVELS[l.level], time, pid: process.pid, msg: l.msg })}\n`).join('');
    await fs.appendFile(file, text, { mode: 0o600 });
  } catch {
    // Nowhere left to say it.
  }
}
