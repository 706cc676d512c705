/**
 * The demo host's toy engine: stable hashes for ids, hashed character n-grams in place of a neural
 * embedding, reading JSON and Markdown transcripts, and chunking messages by length.
 */
import type { Chunk, ForkOf, Role, SessionInput, StoredMessage } from '../../../shared/domain.js';
import { FORK_MIN_SHARED, ROLES } from '../../../shared/domain.js';
import type { ErrorCode } from '../../../shared/errors.js';
import type { SkippedPart } from '../../../shared/ipc.js';

export const EMBEDDING_DIMENSIONS = 512;
const CHUNK_CHARS = 700;

/** An error the toy host answers with, as the real host would (code + readable message). */
export class HostError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** FNV-1a over a string, 32 bits, as 8 hex digits; two seeds make a 16-digit id that is stable across runs. */
function fnv(text: string, seed = 0x811c9dc5): string {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

export function stableHash(text: string): string {
  return fnv(text) + fnv(text, 0x1234567);
}

const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;

/** Signed feature hashing of character trigrams (and CJK bigrams), L2-normalised: similar text, similar vector. */
export function toyEmbedding(text: string): number[] {
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  const normalised = ` ${text.toLowerCase().replace(/\s+/g, ' ')} `;
  const add = (feature: string): void => {
    const hash = parseInt(fnv(feature), 16);
    const index = hash % EMBEDDING_DIMENSIONS;
    vector[index] = (vector[index] ?? 0) + ((hash >>> 16) & 1 ? 1 : -1);
  };
  for (let i = 0; i + 3 <= normalised.length; i++) add(normalised.slice(i, i + 3));
  for (let i = 0; i + 2 <= normalised.length; i++) {
    const pair = normalised.slice(i, i + 2);
    if (CJK.test(pair)) add(pair);
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] ?? 0) * (b[i] ?? 0);
  return dot;
}

export function bytesFromBase64(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** The toy importer: a JSON transcript (one, a list, or `{sessions}`) or a Markdown one with `## user` headings. */
export function parseTranscriptFile(name: string, bytes: Uint8Array): { format: string; sessions: SessionInput[]; skipped?: SkippedPart[] } {
  const text = new TextDecoder('utf-8').decode(bytes);
  const base = name.replace(/\.[^.]+$/, '');
  if (/\.md$/i.test(name)) {
    const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim();
    const messages: SessionInput['messages'] = [];
    for (const section of text.split(/^##\s+/m).slice(1)) {
      const newline = section.indexOf('\n');
      const role = section.slice(0, newline < 0 ? undefined : newline).trim().toLowerCase();
      const content = newline < 0 ? '' : section.slice(newline + 1).trim();
      if (isRole(role) && content) messages.push({ role, content });
    }
    if (messages.length === 0) throw new HostError('invalid_input', `${name}: no "## user" or "## assistant" sections found.`);
    return { format: 'markdown', sessions: [{ sessionId: base, title: title ?? base, source: 'markdown', messages }] };
  }
  if (!/\.json$/i.test(name)) throw new HostError('unknown_format', `${name}: this file type is not recognised.`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new HostError('invalid_input', `${name}: not valid JSON (${error instanceof Error ? error.message : String(error)}).`);
  }
  const list = Array.isArray(data) ? data : typeof data === 'object' && data !== null && Array.isArray((data as { sessions?: unknown }).sessions) ? (data as { sessions: unknown[] }).sessions : [data];
  // As the real importers do, a damaged transcript of a file that holds several is skipped and named.
  const sessions: SessionInput[] = [];
  const skipped: SkippedPart[] = [];
  let firstProblem: string | undefined;
  list.forEach((item, index) => {
    const problem = transcriptProblem(item);
    if (problem === undefined) {
      const candidate = item as SessionInput;
      sessions.push({ sessionId: candidate.sessionId, title: candidate.title, source: candidate.source ?? 'json', messages: candidate.messages });
      return;
    }
    const id = (item as { sessionId?: unknown } | null)?.sessionId;
    firstProblem ??= `transcript ${index + 1} ${problem}`;
    skipped.push({ session: typeof id === 'string' ? id : String(index + 1), error: `transcript ${index + 1} ${problem}` });
  });
  if (sessions.length === 0) throw new HostError('invalid_input', `${name}: ${firstProblem ?? 'no transcripts'}.`);
  return { format: 'json', sessions, skipped };
}

function transcriptProblem(item: unknown): string | undefined {
  const candidate = item as Partial<SessionInput> | null;
  if (!candidate || typeof candidate.sessionId !== 'string' || !Array.isArray(candidate.messages)) return 'has no sessionId or messages';
  for (const message of candidate.messages) {
    if (!isRole(message?.role) || typeof message.content !== 'string') return 'has a message without a role or text';
  }
  return undefined;
}

/** Packs consecutive messages into chunks of about CHUNK_CHARS; a long message spans several chunks. */
export function chunkMessages(sessionId: string, messages: StoredMessage[], createdAt: string, previous: Map<string, Chunk>): Chunk[] {
  const chunks: Chunk[] = [];
  let text = '';
  let msgIds: string[] = [];
  const flush = (): void => {
    if (!text) return;
    const chunkId = `c-${stableHash(`${sessionId}\n${msgIds.join(',')}\n${text}`)}`;
    chunks.push({ chunkId, sessionId, text, msgIds, createdAt: previous.get(chunkId)?.createdAt ?? createdAt });
    text = '';
    msgIds = [];
  };
  for (const message of messages) {
    message.chunkIds = [];
    let rest = `${message.role}: ${message.content}`;
    while (rest) {
      if (text && text.length + rest.length + 1 > CHUNK_CHARS) flush();
      const piece = rest.slice(0, CHUNK_CHARS - text.length - (text ? 1 : 0));
      text = text ? `${text}\n${piece}` : piece;
      msgIds.push(message.msgId);
      rest = rest.slice(piece.length);
      if (rest) flush();
    }
  }
  flush();
  const byId = new Map(messages.map((message) => [message.msgId, message]));
  for (const chunk of chunks) {
    for (const msgId of new Set(chunk.msgIds)) byId.get(msgId)?.chunkIds.push(chunk.chunkId);
  }
  return chunks;
}

/**
 * As the engine records it: of the sessions archived before `session` (`inOrder` lists them in the
 * order they were first saved), the one sharing its longest leading run, at least FORK_MIN_SHARED.
 */
export function forkAmong<S extends { sessionId: string; archivedAt: string; messages: Array<{ role: string; content: string }> }>(session: S, inOrder: Iterable<S>): ForkOf | null {
  let best: { fork: ForkOf; archivedAt: string } | null = null;
  for (const other of inOrder) {
    if (other === session) break;
    let shared = 0;
    while (shared < session.messages.length && shared < other.messages.length && session.messages[shared]!.role === other.messages[shared]!.role && session.messages[shared]!.content === other.messages[shared]!.content) shared++;
    if (shared >= FORK_MIN_SHARED && (!best || shared > best.fork.sharedMessages || (shared === best.fork.sharedMessages && other.archivedAt < best.archivedAt))) best = { fork: { sessionId: other.sessionId, sharedMessages: shared }, archivedAt: other.archivedAt };
  }
  return best?.fork ?? null;
}
