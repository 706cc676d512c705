/**
 * A result with the other half of its turn. A long reply is split into several chunks, and the chunk
 * that matches a question often only echoes what the user asked or told in the message before it (the
 * plan, the numbers, the preference): such a result carries that user message (its first characters
 * before the text, its id first in `msgIds`). And a result that is a user message alone carries the
 * start of the reply that follows it (its first characters after the text, its id last): what was
 * answered or agreed to is often the evidence too. Two messages at most: the turn it belongs to.
 */
import type { SearchReads } from '../store/searchView.js';
import type { ChunkPlace } from '../store/storeLookups.js';

/** How much of the other half a result shows (the whole message is one `show` away). */
export const PROMPT_CHARS = 300;

export interface PromptableHit {
  sessionId: string;
  text: string;
  msgIds: string[];
  seq?: number;
  part?: number;
}

const HAS_USER_LINE = /(^|\n)user: /;
const HAS_OTHER_LINE = /(^|\n)(assistant|system|tool): /;

export interface Prompt {
  msgId: string;
  content: string;
  /** Who said it, when named: its line shows the name in place of the role, as in the chunks. */
  speaker?: string;
  /** Whether the message comes after the result (its reply) rather than before it (its request). */
  after?: boolean;
}

/**
 * The other half of each of these hits' turns, by chunk id: the user message before a reply part
 * that holds no user message, the reply after a user message that is the hit's only message.
 */
export async function promptsFor(reads: Pick<SearchReads, 'messagesAround'>, hits: ReadonlyArray<PromptableHit & { chunkId: string }>): Promise<Map<string, Prompt>> {
  const replyParts = hits.filter((hit) => placed(hit) && !HAS_USER_LINE.test(hit.text));
  const requests = hits.filter((hit) => placed(hit) && hit.msgIds.length === 1 && HAS_USER_LINE.test(hit.text) && !HAS_OTHER_LINE.test(hit.text));
  const wanted = [...replyParts, ...requests];
  const prompts = new Map<string, Prompt>();
  if (wanted.length === 0) return prompts;
  const around = await reads.messagesAround(wanted.map(placeOf));
  wanted.forEach((hit, i) => {
    // Lines that name their speakers ("Caroline: ...") do not say their roles: the messages read do.
    const roles = named(hit.text) ? around[i]?.roles : undefined;
    const isRequest = roles ? hit.msgIds.length === 1 && roles.every((role) => role === 'user') : i >= replyParts.length;
    if (roles && !isRequest && roles.includes('user')) return;
    const message = isRequest ? around[i]?.after : around[i]?.before;
    if (!message || hit.msgIds.includes(message.msgId)) return;
    if (isRequest ? message.role === 'assistant' : message.role === 'user') prompts.set(hit.chunkId, { msgId: message.msgId, content: message.content, ...(message.speaker ? { speaker: message.speaker } : {}), ...(isRequest ? { after: true } : {}) });
  });
  return prompts;
}

/** Whether no line of a chunk's text begins with a role: each names its speaker instead (chunker.ts segmentLine). */
function named(text: string): boolean {
  return !HAS_USER_LINE.test(text) && !HAS_OTHER_LINE.test(text);
}

/** Whether a hit has a place in its session to look around (a position and messages). */
export function placed(hit: PromptableHit): boolean {
  return hit.seq !== undefined && Number.isFinite(hit.seq) && hit.msgIds.length > 0;
}

/** Where a placed hit sits, for `messagesAround`. */
export function placeOf(hit: PromptableHit): ChunkPlace {
  return { sessionId: hit.sessionId, seq: hit.seq!, ...(hit.part !== undefined ? { part: hit.part } : {}), firstMsgId: hit.msgIds[0]!, lastMsgId: hit.msgIds[hit.msgIds.length - 1]! };
}

/**
 * The results, each joined by the other half of its turn when `prompts` has it (see the top of this
 * file), unless a better result already shows that message: it is not shown twice.
 */
export function withPrompts<T extends { hit: PromptableHit & { chunkId: string } }>(results: readonly T[], prompts: ReadonlyMap<string, Prompt>): T[] {
  const shown = new Set<string>();
  return results.map((result) => {
    const prompt = prompts.get(result.hit.chunkId);
    const key = (msgId: string) => `${result.hit.sessionId}\u0000${msgId}`;
    const own = result.hit.msgIds.map(key);
    if (!prompt || shown.has(key(prompt.msgId))) {
      for (const id of own) shown.add(id);
      return result;
    }
    for (const id of [...own, key(prompt.msgId)]) shown.add(id);
    const content = prompt.content.length > PROMPT_CHARS ? `${prompt.content.slice(0, PROMPT_CHARS).trimEnd()}…` : prompt.content;
    const hit = prompt.after
      ? { ...result.hit, text: `${result.hit.text}\n${prompt.speaker ?? 'assistant'}: ${content}`, msgIds: [...result.hit.msgIds, prompt.msgId] }
      : { ...result.hit, text: `${prompt.speaker ?? 'user'}: ${content}\n${result.hit.text}`, msgIds: [prompt.msgId, ...result.hit.msgIds] };
    return { ...result, hit };
  });
}
