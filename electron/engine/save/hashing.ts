import { createHash } from 'node:crypto';
import type { Role, SessionInput } from '../../../shared/domain.js';
import { REDACTION_RULES_VERSION } from '../privacy/redaction/rules.js';

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Hash of what a message says. Any change of role or content, even of the same length, changes it;
 * so does a change of who said it (a speaker's name). A message without a name hashes as it did
 * before names were kept, so stores saved then see their messages unchanged.
 */
export function contentHash(role: Role, content: string, speaker?: string): string {
  // A name holds no control characters (normalize.ts), and roles are fixed words: the two forms never meet.
  return sha256(speaker ? `${role}\u0002${speaker}\u0000${content}` : `${role}\u0000${content}`);
}

/**
 * Id for a message that came without one: its role, its content and its occurrence number among
 * identical messages of the transcript. Saving the same id-less transcript twice yields the same ids,
 * and messages added later (or earlier) do not change the ids of the others.
 */
export function deriveMessageId(sessionId: string, role: Role, content: string, occurrence: number): string {
  return `m-${sha256(`${sessionId}\u0000${role}\u0000${content}\u0000${occurrence}`).slice(0, 24)}`;
}

/** Fingerprint of a message set: equal fingerprints mean the same messages with the same content, in order. */
export function messageSetFingerprint(messages: ReadonlyArray<{ msgId: string; contentHash: string }>): string {
  const hash = createHash('sha256');
  for (const m of messages) hash.update(`${m.msgId}\u0000${m.contentHash}\n`);
  return hash.digest('hex');
}

/**
 * Fingerprint of a save's input exactly as given, with the options that decide what it stores. One
 * pass of sha256 over the text: no checks, no ids, no per-message hashes. Null for input that is not
 * even shaped like a session (the full checks then say what is wrong).
 */
export function inputFingerprint(input: SessionInput, options: { redact: boolean; syncDeletes: boolean }): string | null {
  if (!input || typeof input !== 'object' || !Array.isArray(input.messages)) return null;
  const hash = createHash('sha256');
  hash.update(`input-1\u0000${String(input.sessionId)}\u0000${options.redact ? REDACTION_RULES_VERSION : 'plain'}\u0000${options.syncDeletes}\n`);
  for (const m of input.messages as unknown[]) {
    if (!m || typeof m !== 'object') return null;
    const { msgId, role, content, timestamp, speaker } = m as Record<string, unknown>;
    // A name only when given, so the input of a transcript without names is recognised as before.
    const named = speaker === undefined ? '' : `\u0000${String(speaker)}`;
    hash.update(`${String(msgId ?? '')}\u0000${String(role)}\u0000${String(content)}\u0000${String(timestamp ?? '')}${named}\u0001`);
  }
  return hash.digest('hex');
}

/** Chunk ids follow from the session and exactly which message parts the chunk holds. */
export function chunkIdFor(sessionId: string, segmentKeys: readonly string[]): string {
  return `c-${sha256(`${sessionId}\u0000${segmentKeys.join('\u0001')}`).slice(0, 32)}`;
}
