/**
 * What each assistant hands `session-memory hook` after a turn, and the transcript it names:
 * - Claude Code (`Stop`, `SessionEnd`), Gemini CLI (`AfterAgent`, `SessionEnd`), Qwen Code (`Stop`,
 *   `SessionEnd`) and Codex's own hooks (`Stop` in hooks.json) write one JSON object on stdin with
 *   `transcript_path` (and `session_id`, `hook_event_name`; Codex's `transcript_path` is null when it
 *   keeps no rollout);
 * - GitHub Copilot CLI's hooks write camelCase fields: `agentStop` `{sessionId, transcriptPath, stopReason,
 *   ...}`, `sessionEnd` `{sessionId, reason, ...}` without the path: the session's events are then found
 *   by its id under `$COPILOT_HOME` (default `~/.copilot`), in `session-state/<session id>/events.jsonl`;
 * - Codex's `notify` program gets the turn as JSON in its last argument,
 *   `{"type": "agent-turn-complete", "thread-id", "turn-id", "cwd", "input-messages", ...}`, and
 *   nothing on stdin: the rollout is found by the thread id under `$CODEX_HOME` (default `~/.codex`),
 *   in `sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readFileSlice } from './fileSlice.js';

/** The transcript a hook names, or the Codex thread whose rollout holds it, or why there is none. */
export type HookTarget =
  | { kind: 'file'; file: string; event?: string; copilotHookAt?: number }
  | { kind: 'codex-thread'; threadId: string; event: string }
  | { kind: 'copilot-session'; sessionId: string; event: string; copilotHookAt?: number }
  | { kind: 'none'; reason: string };

/** The Codex `notify` payload among the arguments (Codex appends it last), if any. */
export function notifyPayloadOf(args: readonly string[]): HookTarget | null {
  for (let i = args.length - 1; i >= 0; i--) {
    const parsed = parseObject(args[i]!);
    if (!parsed) continue;
    const threadId = parsed['thread-id'];
    const type = typeof parsed.type === 'string' ? parsed.type : 'notify';
    if (typeof threadId === 'string' && /^[\w-]+$/.test(threadId)) return { kind: 'codex-thread', threadId, event: type };
    return { kind: 'none', reason: `the ${type} payload names no "thread-id"` };
  }
  return null;
}

/** The transcript a hook's stdin names. */
export function stdinTargetOf(input: string): HookTarget {
  if (input.trim() === '') return { kind: 'none', reason: 'no hook input on stdin and no --file' };
  const parsed = parseObject(input);
  if (!parsed) return { kind: 'none', reason: 'the hook input on stdin is not a JSON object' };
  const event = typeof parsed.hook_event_name === 'string' ? parsed.hook_event_name : undefined;
  // Copilot CLI alone writes `sessionId` in camelCase, and the time its hook started (ms) as `timestamp`.
  const copilot = typeof parsed.sessionId === 'string' && typeof parsed.timestamp === 'number' ? { copilotHookAt: parsed.timestamp } : {};
  const file = parsed.transcript_path ?? parsed.transcriptPath;
  if (typeof file === 'string' && file !== '') return { kind: 'file', file, ...(event ? { event } : {}), ...copilot };
  // Copilot CLI's sessionEnd names its session only.
  if (typeof parsed.sessionId === 'string' && /^[\w-]+$/.test(parsed.sessionId)) return { kind: 'copilot-session', sessionId: parsed.sessionId, event: typeof parsed.reason === 'string' ? 'sessionEnd' : 'copilot', ...copilot };
  return { kind: 'none', reason: `the hook input${event ? ` (${event})` : ''} has no "transcript_path"` };
}

/** A GitHub Copilot CLI session's events: `$COPILOT_HOME`, else `~/.copilot`, then `session-state/<id>/events.jsonl`. */
export function copilotSessionEvents(sessionId: string, env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const folder = env.COPILOT_HOME && env.COPILOT_HOME.trim() !== '' ? path.resolve(env.COPILOT_HOME) : path.join(home, '.copilot');
  return path.join(folder, 'session-state', sessionId, 'events.jsonl');
}

/**
 * Whether Copilot CLI's events file holds the `hook.start` event of the hook that started at `startedAt`
 * (ms; its input's `timestamp`, which that event's time equals). Copilot writes its events a moment
 * after it runs a hook; the file is written in order, so once that event is there, so is the turn
 * before it. Looks at the file's last 256 KB.
 */
export async function copilotHookWritten(file: string, startedAt: number): Promise<boolean> {
  const tail = await readFileSlice(file, 'end', 256 * 1024);
  return (
    tail !== null &&
    tail.bytes
      .toString('utf8')
      .split('\n')
      .some((line) => {
        if (!line.includes('"hook.start"')) return false;
        const event = parseObject(line);
        return event !== null && event.type === 'hook.start' && typeof event.timestamp === 'string' && Date.parse(event.timestamp) >= startedAt;
      })
  );
}

/** Codex's folder: `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  return env.CODEX_HOME && env.CODEX_HOME.trim() !== '' ? path.resolve(env.CODEX_HOME) : path.join(home, '.codex');
}

/**
 * The rollout of a Codex thread: the newest day folders first (a thread's file is in the folder of
 * the day it started, so a turn of today's thread is found at the first look). Null when none is.
 */
export async function findCodexRollout(threadId: string, codexDir: string): Promise<string | null> {
  const suffix = `-${threadId}.jsonl`;
  const sessions = path.join(codexDir, 'sessions');
  const newestFirst = async (dir: string): Promise<string[]> =>
    (await fs.readdir(dir, { withFileTypes: true }).catch(() => []))
      .filter((e) => e.isDirectory() && /^\d+$/.test(e.name))
      .map((e) => e.name)
      .sort((a, b) => Number(b) - Number(a));
  for (const year of await newestFirst(sessions)) {
    for (const month of await newestFirst(path.join(sessions, year))) {
      for (const day of await newestFirst(path.join(sessions, year, month))) {
        const dir = path.join(sessions, year, month, day);
        const match = (await fs.readdir(dir).catch(() => [] as string[])).find((name) => name.startsWith('rollout-') && name.endsWith(suffix));
        if (match) return path.join(dir, match);
      }
    }
  }
  return null;
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
