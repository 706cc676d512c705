/**
 * What a question is about, for the searches: a question to a memory often names the conversations
 * themselves ("across our sessions", "in our previous chat", "throughout our discussions"). Those
 * words say where to look, which is everywhere the search looks anyway, and they pull both searches
 * toward whatever talks about conversations and sessions rather than toward the topic asked about.
 * These are English words: a question in another script is left whole (textLanguage.ts).
 */
import { mayBeEnglish } from './textLanguage.js';

const TALK_REFERENCE =
  /\b(?:across|throughout|during|in|over|from|through)\s+(?:all\s+)?(?:of\s+)?(?:our|my|the|these|those)\s+(?:previous\s+|past\s+|earlier\s+|recent\s+|different\s+)?(?:conversations?|sessions?|chats?|discussions?|talks?)\b/gi;

/** The question less the words that refer to the conversations themselves (the question itself when nothing else is left). */
export function topicOf(question: string): string {
  if (!mayBeEnglish(question)) return question;
  const topic = question.replace(TALK_REFERENCE, ' ').replace(/\s+([?.!,;:])/g, '$1').replace(/\s+/g, ' ').trim();
  return /[\p{L}\p{N}]/u.test(topic) ? topic : question;
}
