/**
 * A result that is part of a reply, with the request it answers: a long reply is split into several
 * chunks, and the chunk that matches a question often only echoes what the user asked or told in the
 * message before it (the plan, the numbers, the preference). Such a result carries that user message
 * (its first characters in the text, its id in `msgIds`): two messages at most, the turn it belongs to.
 */
import type { SearchReads } from '../store/searchView.js';

/** How much of the request a result shows (the whole message is one `show` away). */
export const PROMPT_CHARS = 300;

export interface PromptableHit {
  sessionId: string;
  text: string;
  msgIds: string[];
  seq?: number;
}

const HAS_USER_LINE = /(^|\n)user: /;

/** The user message before each of these hits that is a reply part holding no user message, by chunk id. */
export async function promptsFor(reads: Pick<SearchReads, 'messagesBefore'>, hits: ReadonlyArray<PromptableHit & { chunkId: string }>): Promise<Map<string, Prompt>> {
  const wanted = hits.filter((hit) => hit.seq !== undefined && Number.isFinite(hit.seq) && hit.msgIds.length > 0 && !HAS_USER_LINE.test(hit.text));
  const prompts = new Map<string, Prompt>();
  if (wanted.length === 0) return prompts;
  const before = await reads.messagesBefore(wanted.map((hit) => ({ sessionId: hit.sessionId, seq: hit.seq!, firstMsgId: hit.msgIds[0]! })));
  wanted.forEach((hit, i) => {
    const message = before[i];
    if (message?.role === 'user' && !hit.msgIds.includes(message.msgId)) prompts.set(hit.chunkId, { msgId: message.msgId, content: message.content });
  });
  return prompts;
}

export interface Prompt {
  msgId: string;
  content: string;
}

/** The results, each joined by its request when `prompts` has one: its first characters in the text, its id first in `msgIds`. */
export function withPrompts<T extends { hit: PromptableHit & { chunkId: string } }>(results: readonly T[], prompts: ReadonlyMap<string, Prompt>): T[] {
  return results.map((result) => {
    const prompt = prompts.get(result.hit.chunkId);
    if (!prompt) return result;
    const content = prompt.content.length > PROMPT_CHARS ? `${prompt.content.slice(0, PROMPT_CHARS).trimEnd()}…` : prompt.content;
    return { ...result, hit: { ...result.hit, text: `user: ${content}\n${result.hit.text}`, msgIds: [prompt.msgId, ...result.hit.msgIds] } };
  });
}
