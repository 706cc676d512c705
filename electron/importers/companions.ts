/**
 * Facts about a session that its tool keeps in a file beside the transcript rather than in it. Read
 * only for transcripts on disk (not for ZIP entries), and only when the file is there; a companion
 * that cannot be read changes nothing.
 *
 * - Codex CLI: the names people give threads are appended to `session_index.jsonl` in the Codex home
 *   (`{id, thread_name, updated_at}` lines; the latest line for a thread wins). A rollout lies in
 *   `sessions/YYYY/MM/DD/` or `archived_sessions/` below it.
 * - Jan: a thread's title (named by the person, or by the model after the first answer) is in the
 *   `thread.json` beside its `messages.jsonl`.
 * - GitHub Copilot CLI: the name a person gave a session (`/rename`, `--name`) is in the
 *   `workspace.yaml` beside its `events.jsonl`, as `name` with `user_named: true`. Without
 *   `user_named`, `name` is Copilot's own placeholder (the first prompt, or one its model made up), and
 *   the title stays the first thing the person said, as for every other tool. A `workspace.yaml` that
 *   is missing or not YAML leaves that title too: the conversation is all in `events.jsonl`, and the
 *   file is read at every save of the session, so a name unreadable at one save (Copilot rewriting the
 *   file) is taken up at the next.
 * - Cline's CLI: a session's title (the first prompt, or what `cline history update --title` set) is
 *   `metadata.title` of the session's record `<sessionId>.json` beside its `<sessionId>.messages.json`.
 * - Continue: its session files hold no time (neither the IDE extensions' nor the `cn` CLI's); the
 *   folder's index, `sessions.json`, gives each session's `dateCreated` (milliseconds since 1970, as
 *   text; an ISO time is read too). It dates the session's first message, when no message has a time of its own, so that the
 *   session sorts and a question that names a time finds it.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { SessionInput } from '../../shared/domain.js';
import type { ImportedFile, TranscriptFile } from './read-types.js';
import { CLINE_CLI_MESSAGES_SUFFIX } from './agents/cline-cli.js';
import { JAN_THREAD_FILE } from './exports/jan.js';
import { isObject, optionalText } from './shape.js';
import { isoFromDateString, isoFromEpoch } from './time.js';

const CODEX_INDEX = 'session_index.jsonl';
const CONTINUE_INDEX = 'sessions.json';
const COPILOT_WORKSPACE_FILE = 'workspace.yaml';
/** From `sessions/YYYY/MM/DD/` up to the Codex home. */
const CODEX_INDEX_LEVELS = 5;

export async function withCompanionFacts(file: TranscriptFile, filePath: string): Promise<TranscriptFile> {
  if ('error' in file) return file;
  if (file.format === 'jan') {
    const title = await janThreadTitle(path.join(path.dirname(path.resolve(filePath)), JAN_THREAD_FILE));
    return title === undefined ? file : renamed(file, () => title);
  }
  if (file.format === 'copilot-cli') {
    const name = await copilotSessionName(path.join(path.dirname(path.resolve(filePath)), COPILOT_WORKSPACE_FILE));
    return name === undefined ? file : renamed(file, () => name);
  }
  if (file.format === 'cline' && filePath.endsWith(CLINE_CLI_MESSAGES_SUFFIX)) {
    const title = await clineCliTitle(`${path.resolve(filePath).slice(0, -CLINE_CLI_MESSAGES_SUFFIX.length)}.json`);
    return title === undefined ? file : renamed(file, () => title);
  }
  if (file.format === 'continue') {
    const created = await continueSessionDates(path.join(path.dirname(path.resolve(filePath)), CONTINUE_INDEX));
    return created.size === 0 ? file : withSessions(file, (session) => datedFirstMessage(session, created.get(session.sessionId)));
  }
  if (file.format !== 'codex') return file;
  const names = await codexThreadNames(path.dirname(path.resolve(filePath)));
  if (names.size === 0) return file;
  return renamed(file, (session) => names.get(session.sessionId));
}

function renamed(file: ImportedFile, titleOf: (session: SessionInput) => string | undefined): ImportedFile {
  return withSessions(file, (session) => {
    const title = titleOf(session);
    return title === undefined ? session : { ...session, title };
  });
}

function withSessions(file: ImportedFile, change: (session: SessionInput) => SessionInput): ImportedFile {
  const sessions = file.sessions;
  return {
    ...file,
    sessions: {
      async *[Symbol.asyncIterator]() {
        for await (const session of sessions) yield change(session);
      },
    },
  };
}

/** The session with its first message dated `created`, when none of its messages has a time. */
function datedFirstMessage(session: SessionInput, created: string | undefined): SessionInput {
  if (created === undefined || session.messages.length === 0 || session.messages.some((m) => m.timestamp !== undefined)) return session;
  const [first, ...rest] = session.messages;
  return { ...session, messages: [{ ...first!, timestamp: created }, ...rest] };
}

/** Each session's `dateCreated` in a Continue index, as an ISO time; none when it is missing or not JSON. */
async function continueSessionDates(file: string): Promise<Map<string, string>> {
  return (await readIndex(file, continueIndex, continueDates, new Map())) ?? new Map();
}

const continueIndex: IndexKept<Map<string, string>> = {};

function continueDates(text: string): Map<string, string> {
  const dates = new Map<string, string>();
  const index: unknown = JSON.parse(text);
  for (const entry of Array.isArray(index) ? index : []) {
    if (!isObject(entry) || typeof entry.sessionId !== 'string') continue;
    const raw = entry.dateCreated;
    const created = typeof raw === 'string' && !/^\d+$/.test(raw) ? isoFromDateString(raw) : isoFromEpoch(typeof raw === 'string' ? Number(raw) : raw);
    if (created !== undefined) dates.set(entry.sessionId, created);
  }
  return dates;
}

/** The last index of a kind read (its file, the file's size and time, what it gave). */
type IndexKept<T> = { last?: { file: string; version: string; value: T } };

/**
 * An index a tool keeps beside its transcripts, read by `parse` and kept while the file is unchanged
 * (a folder of sessions shares one index); undefined when there is no such file, `unreadable` when it
 * cannot be read or parsed.
 */
async function readIndex<T>(file: string, kept: IndexKept<T>, parse: (text: string) => T, unreadable: T): Promise<T | undefined> {
  let version: string;
  try {
    const stats = await stat(file);
    if (!stats.isFile()) return undefined;
    version = `${stats.size}:${stats.mtimeMs}`;
  } catch {
    return undefined;
  }
  if (kept.last?.file === file && kept.last.version === version) return kept.last.value;
  let value: T;
  try {
    value = parse(await readFile(file, 'utf8'));
  } catch {
    return unreadable;
  }
  kept.last = { file, version, value };
  return value;
}

const codexIndex: IndexKept<Map<string, string>> = {};

/** The thread names of the Codex home's index, found from `sessions/YYYY/MM/DD/` (or `archived_sessions/`) up. */
async function codexThreadNames(folder: string): Promise<Map<string, string>> {
  for (let dir = folder, level = 0; level < CODEX_INDEX_LEVELS; level++, dir = path.dirname(dir)) {
    const names = await readIndex(path.join(dir, CODEX_INDEX), codexIndex, codexNames, new Map());
    if (names !== undefined) return names;
    if (path.dirname(dir) === dir) break;
  }
  return new Map();
}

/** `{id, thread_name}` lines; the latest line for a thread wins, and a line that is not JSON is passed over. */
function codexNames(text: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const line of text.split('\n')) {
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObject(entry) || typeof entry.id !== 'string') continue;
    const name = optionalText(entry.thread_name);
    if (name !== undefined) names.set(entry.id, name.trim());
  }
  return names;
}

async function janThreadTitle(file: string): Promise<string | undefined> {
  try {
    const thread: unknown = JSON.parse(await readFile(file, 'utf8'));
    return isObject(thread) ? optionalText(thread.title)?.trim() : undefined;
  } catch {
    return undefined;
  }
}

async function clineCliTitle(file: string): Promise<string | undefined> {
  try {
    const record: unknown = JSON.parse(await readFile(file, 'utf8'));
    return isObject(record) && isObject(record.metadata) ? optionalText(record.metadata.title)?.trim() : undefined;
  } catch {
    return undefined;
  }
}

async function copilotSessionName(file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  // Only a session the person named has `user_named: true`, and YAML writes no true without those
  // letters: the others (most sessions) are not parsed, and a hook on them does not load the package
  // (about 35 ms of CPU). Loaded with the first named Copilot session read otherwise.
  if (!/true/i.test(text)) return undefined;
  const { parse } = await import('yaml');
  let workspace: unknown;
  try {
    // `logLevel: 'error'`: a YAML error throws; warnings are not printed.
    workspace = parse(text, { logLevel: 'error' });
  } catch {
    return undefined;
  }
  return isObject(workspace) && workspace.user_named === true ? optionalText(workspace.name)?.trim() : undefined;
}
