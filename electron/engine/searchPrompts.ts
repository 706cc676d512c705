/**
 * A result that is part of a reply, with the request it answers: a long reply is split into several
 * chunks, and the chunk that matches a question often only echoes what the user asked or told in the
 * message before it (the plan, the numbers, the preference). Such a result carries that user message
 * (its first characters in the text, its id in `msgIds`): two messages at most, the turn it belongs to.
 */
import type { EngineContext } from './context.js';

/** How much of the request a result shows (the whole message is one `show` away). */
export const PROMPT_CHARS = 300;

export interface PromptableHit {
  sessionId: string;
  text: string;
  msgIds: string[];
  seq?: number;
}

const HAS_USER_LINE = /(^|\n)user: /;

/** The results, each reply part that holds no user message joined by the user message before it. */
export async function withPrompts<T extends { hit: PromptableHit }>(ctx: EngineContext, results: readonly T[]): Promise<T[]> {
  const wanted = results.filter(({ hit }) => hit.seq !== undefined && Number.isFinite(hit.seq) && hit.msgIds.length > 0 && !HAS_USER_LINE.test(hit.text));
  if (wanted.length === 0) return [...results];
  const before = await ctx.store.messagesBefore(wanted.map(({ hit }) => ({ sessionId: hit.sessionId, seq: hit.seq!, firstMsgId: hit.msgIds[0]! })));
  const prompts = new Map<T, { msgId: string; content: string }>();
  wanted.forEach((result, i) => {
    const message = before[i];
    if (message?.role === 'user' && !result.hit.msgIds.includes(message.msgId)) prompts.set(result, message);
  });
  return results.map((result) => {
    const prompt = prompts.get(result);
    if (!prompt) return result;
    const content = prompt.content.length > PROMPT_CHARS ? `${prompt.content.slice(0, PROMPT_CHARS).trimEnd()}…` : prompt.content;
    return { ...result, hit: { ...result.hit, text: `user: ${content}\n${result.hit.text}`, msgIds: [prompt.msgId, ...result.hit.msgIds] } };
  });
}
