import { LRUCache } from 'lru-cache';
import * as z from 'zod';
import { ROLES, type MessageInput, type Role, type SessionInput } from '../../../shared/domain.js';
import { contentHash, deriveMessageId } from './hashing.js';
import { EngineError } from '../errors.js';
import { redactText } from '../privacy/redaction/redact.js';
import { runInSlices, runToEnd } from './timeSlices.js';

export interface NormalizedMessage {
  msgId: string;
  role: Role;
  content: string;
  /** Who said it (see MessageInput.speaker), when named. */
  speaker?: string;
  contentHash: string;
  timestamp?: string;
  /** Position in this input. */
  seq: number;
}

export interface NormalizedSession {
  sessionId: string;
  title?: string;
  source?: string;
  parentSessionId?: string;
  messages: NormalizedMessage[];
  /** Secrets replaced in the messages and the title (see redaction/redact.ts). */
  redacted: number;
}

export interface NormalizeOptions {
  /** Replace well-known secrets with `[REDACTED:<kind>]` before ids and hashes are taken. Default true. */
  redact?: boolean;
}

/**
 * A copy of a string that shares no memory with the text it was cut from. V8 keeps a string that
 * JSON.parse (or slice) cut from a larger one as a view of it: an id or title kept for as long as
 * the engine runs would keep the whole conversation's JSON text alive with it (about 100 KB per
 * session of a large export). Ids, titles and sources are kept this way.
 */
export function detachedString(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

// Ids become Arrow strings, which cannot carry lone UTF-16 surrogates (they would be stored changed).
const wellFormed = (s: string) => s.isWellFormed();

const messageSchema = z.object({
  msgId: z
    .string()
    .min(1, 'must be a non-empty string')
    .refine(wellFormed, 'must be well-formed Unicode text')
    // Arrow's UTF-8 decoding drops a leading U+FEFF: the id would come back changed.
    .refine((s) => !s.startsWith('\uFEFF'), 'must not start with U+FEFF (a byte order mark)')
    .optional(),
  role: z.enum(ROLES as [Role, ...Role[]]),
  content: z.string().refine((s) => s.trim().length > 0, 'must be a non-empty string'),
  speaker: z.string().optional(),
  timestamp: z.string().optional(),
});

const sessionSchema = z.object({
  sessionId: z.string().trim().min(1, 'must be a non-empty string').refine(wellFormed, 'must be well-formed Unicode text'),
  title: z.string().optional(),
  source: z.string().optional(),
  parentSessionId: z.string().trim().min(1, 'must be a non-empty string').refine(wellFormed, 'must be well-formed Unicode text').optional(),
  messages: z.array(z.unknown()),
});

function pathOf(issue: z.core.$ZodIssue, prefix: string): string {
  let out = prefix;
  for (const key of issue.path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  return out;
}

/**
 * The name a message is said by, as the chunk text shows it: on one line (whitespace and control
 * characters become single spaces), and none when it is empty or only a role's word ("User",
 * "assistant"), which the role line says already (repeating role words as names costs recall).
 */
export function speakerName(speaker: string | undefined): string | undefined {
  if (speaker === undefined) return undefined;
  const name = speaker.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, ' ').trim();
  return name === '' || (ROLES as readonly string[]).includes(name.toLowerCase()) ? undefined : name;
}

/**
 * What a message's text becomes (its secrets replaced) and its content hash, by its role, name and
 * text as given. A session is saved again and again as it grows (a hook after every turn, a watched
 * file), and all but its newest messages come back as they were: their redaction and hash are looked
 * up instead (an edit of a 2,000-message session normalizes in 5-9 ms instead of 11-18:
 * docs/benchmarks.md, "The append a median of three"). Both depend on nothing but these inputs (the
 * redaction rules are fixed), so an entry never goes stale; the cache is bounded by the characters it
 * holds.
 */
const contentCache = new LRUCache<string, { text: string; count: number; hash: string }>({ maxSize: 8_000_000, sizeCalculation: (value, key) => key.length + value.text.length + 64 });

function normalizedContent(role: Role, raw: string, speaker: string | undefined, redact: boolean): { text: string; count: number; hash: string } {
  const key = `${redact ? 'r' : 'n'}\u0000${role}\u0000${speaker ?? ''}\u0000${raw}`;
  const known = contentCache.get(key);
  if (known) return known;
  // Before the hash: a re-save keeps the hash of the text as stored.
  const redacted = redact ? redactText(raw) : { text: raw, count: 0 };
  const value = { text: redacted.text, count: redacted.count, hash: contentHash(role, redacted.text, speaker) };
  contentCache.set(key, value);
  return value;
}

/**
 * Checks a session and gives every message its id and content hash. A message id repeated inside
 * one input is kept once (its first occurrence) and reported as a warning.
 */
export function normalizeSession(input: SessionInput, options: NormalizeOptions = {}): { session: NormalizedSession; warnings: string[] } {
  return runToEnd(normalizeSteps(input, options));
}

/** The same, giving the event loop a turn every few milliseconds (long transcripts, UI thread). */
export function normalizeSessionAsync(input: SessionInput, options: NormalizeOptions = {}): Promise<{ session: NormalizedSession; warnings: string[] }> {
  return runInSlices(normalizeSteps(input, options));
}

function* normalizeSteps(input: SessionInput, options: NormalizeOptions): Generator<void, { session: NormalizedSession; warnings: string[] }> {
  const head = sessionSchema.safeParse(input);
  if (!head.success) {
    const issue = head.error.issues[0]!;
    throw new EngineError('invalid_input', `${pathOf(issue, '') || 'session'} ${issue.message}`);
  }
  const warnings: string[] = [];
  const messages: NormalizedMessage[] = [];
  const seen = new Map<string, number>();
  const occurrences = new Map<string, number>();
  const redact = options.redact ?? true;
  let redacted = 0;
  for (const [index, raw] of input.messages.entries()) {
    if (index % 64 === 63) yield;
    const parsed = messageSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new EngineError('invalid_input', `${pathOf(issue, `messages[${index}]`)} ${issue.message}`);
    }
    const m: MessageInput = parsed.data;
    const speaker = speakerName(m.speaker);
    // Redacted before the id and the hash: an id-less message keeps its id, and a re-save its hash.
    const normalized = normalizedContent(m.role, m.content, speaker, redact);
    m.content = normalized.text;
    redacted += normalized.count;
    let msgId = m.msgId;
    if (!msgId) {
      const key = `${m.role}\u0000${m.content}`;
      const occurrence = occurrences.get(key) ?? 0;
      occurrences.set(key, occurrence + 1);
      msgId = deriveMessageId(input.sessionId, m.role, m.content, occurrence);
    }
    const first = seen.get(msgId);
    if (first !== undefined) {
      warnings.push(`message id ${msgId} appears again at messages[${index}] (first at messages[${first}]); kept the first`);
      continue;
    }
    seen.set(msgId, index);
    messages.push({
      msgId: detachedString(msgId),
      role: m.role,
      content: m.content,
      ...(speaker ? { speaker } : {}),
      contentHash: normalized.hash,
      ...(m.timestamp ? { timestamp: m.timestamp } : {}),
      seq: index,
    });
  }
  let title = input.title === undefined ? undefined : detachedString(input.title);
  if (redact && title) {
    const r = redactText(title);
    title = r.text;
    redacted += r.count;
  }
  return {
    session: {
      sessionId: detachedString(input.sessionId.trim()),
      title,
      redacted,
      source: input.source === undefined ? undefined : detachedString(input.source),
      ...(input.parentSessionId ? { parentSessionId: detachedString(input.parentSessionId.trim()) } : {}),
      messages,
    },
    warnings,
  };
}
