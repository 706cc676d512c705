/**
 * Standing wishes: what a person asked to be done always or never, and what they said they prefer
 * ("Always show code with syntax highlighting when I ask about implementation", "I prefer short
 * editing sessions"). Such a message governs every later request on its topic, but shares few words
 * and little meaning with the request itself ("How do I implement a login?"), so neither search ranks
 * it high. When a question is the asker's own request for help (rather than about what happened, or
 * about someone else: "What is Caroline's favourite book?"), the wishes whose words match it are
 * searched on their own (full-text queries of the wish words with the request's words, and of the
 * wish words alone) and the best few join the fusion as a third ranked list. A question that is no
 * request brings only the rules stated for such a question (rulesStatedFor): "Always format dates as
 * Month Day, Year when I ask about timeline details" for "When was the festival?".
 *
 * The cost is one more full-text query that stops at WISH_POOL hits (the wish words alone are the
 * same for every request, so their hits are read once per version of the store: searchView.ts), and
 * the cosine of at most 2 x WISH_POOL vectors: a small constant per search, whatever the size of the store.
 *
 * The cues and the wish words are English: only a question, and a user message, written in the Latin
 * script is read for them (textLanguage.ts), so that a Chinese message quoting "never" is no wish and a
 * Chinese question is no request for English wishes.
 */
import { cosine } from './collapse.js';
import { mayBeEnglish } from './textLanguage.js';
import { stemmedWords } from './questionWords.js';
import type { VectorHit } from '../store/storeRows.js';

/** Words that mark a standing wish (stemmed by the index: "preferred", "preferences" match too). */
export const WISH_WORDS = 'always never prefer preference';

/**
 * Wish candidates read from the full-text index by each of its two queries, then ranked by meaning
 * too: a long history holds many sentences with "always" or "never", and the wish a request needs may
 * share none of its words.
 */
export const WISH_POOL = 160;

/**
 * How many wishes join the fusion: a request may fall under a rule and a preference at once
 * ("Always use APA style when I ask about references", "I prefer Word over Google Docs").
 */
export const WISH_RESULTS = 4;

/**
 * The weight of the wishes' list in the fusion: the wish that matches a request best comes level with
 * what both searches rank first, and each of the four before what only one of them ranks first (with
 * the rank constant of 10: 2/14 against 1/11). A request is new: what governs it is often a wish more
 * than anything said about its topic (docs/retrieval.md, 1.5 and 2.5 measured).
 */
export const WISH_WEIGHT = 2;

/**
 * The weight of the rules that join a question which is no request (rulesStatedFor): half the wishes'
 * weight, since the answer to such a question is in the record and the rule says only how to give it,
 * and the first rule comes level with what one search ranks first (docs/retrieval.md: 2 and 0.5 measured).
 */
export const RULE_WEIGHT = 1;

/** How many rules a question that is no request brings at most (rulesStatedFor). */
export const RULES_FOR_QUESTION = 2;

/**
 * Cues of a question about what happened or was said (a past event, a count over the sessions, an
 * order, a summary): the answer is in the record itself, not in a wish about how to answer.
 */
const ABOUT_THE_RECORD =
  /\b(did|didn't|have i|had|was|were|ever|mention\w*|said|told|discuss\w*|brought up|summar\w*|order|across|throughout|how many|how much|how long|when|recommended|suggested|previous\w*|earlier|last)\b/i;

/**
 * The asker speaking of themselves or to the one who answers: a request ("How do I ...", "Could you
 * show me ...", "What should we ...") names one of them; a question about a third person does not.
 */
const ASKER_OR_ANSWERER = /\b(i|me|my|mine|myself|we|us|our|you|your)\b/i;

/**
 * Whether a question is the asker's request for help or advice now (so their standing wishes on its
 * topic apply): it speaks of the asker or to the answerer, and not of what happened or was said.
 */
export function asksForHelp(question: string): boolean {
  return mayBeEnglish(question) && ASKER_OR_ANSWERER.test(question) && !ABOUT_THE_RECORD.test(question);
}

const WISH_IN_USER_LINE = /\b(always|never|prefer\w*)\b/i;

/**
 * A wish proper: a rule ("Always ...", "Never ...", "Please always ...", "You should never ...", "Make
 * sure to always ...") or a preference ("I prefer ...", "I'd much prefer ...", "my preference is
 * ..."), as against a message that only holds one of the words ("I've never deployed it before",
 * "it always crashes").
 */
const RULE = /(?:^|[.!?]\s+|\n)\s*(?:please\s+)?(?:always|never)\b|\b(?:you|we)\s+(?:should|must)\s+(?:always|never)\b|\bmake sure (?:to|you)\s+(?:always|never)\b/i;
const PREFERENCE = /\bI(?:['\u2019]d)?(?:\s+(?:would|really|strongly|generally|usually|always|also|much|still|definitely|do))*\s+prefer\b|\bmy preference\b/i;

/** Whether a chunk states a wish proper (RULE, PREFERENCE) in the words of a user message written in the Latin script. */
export function statesWish(text: string): boolean {
  return userSegments(text).some((segment) => (RULE.test(segment) || PREFERENCE.test(segment)) && mayBeEnglish(segment));
}

/** Whether a chunk holds a wish in the words of a user message (an assistant advising "always ..." is no wish) written in the Latin script. */
export function holdsUserWish(text: string): boolean {
  return userSegments(text).some((segment) => WISH_IN_USER_LINE.test(segment) && mayBeEnglish(segment));
}

/** The text of the user messages in a chunk's text (`role: text` segments, see chunker.ts). */
function userSegments(text: string): string[] {
  const segments: string[] = [];
  let current: string[] | null = null;
  for (const line of text.split('\n')) {
    const role = /^(user|assistant|system|tool): /.exec(line);
    if (role) {
      if (current) segments.push(current.join('\n'));
      current = role[1] === 'user' ? [line.slice(role[0].length)] : null;
    } else if (current) current.push(line);
  }
  if (current) segments.push(current.join('\n'));
  return segments;
}

/**
 * The wishes to fuse, best first: the candidates (best by words first) holding a user's wish, each
 * text once (copies of a message saved in several sessions take one place), ranked by their words
 * and by their meaning (cosine to the question) together, the wishes proper (statesWish) before those
 * that only hold a wish's word. A person who writes "I've never used Redis here" and "Always explain
 * the trade-offs when I ask about caching" asks for the second to govern "How should I cache the
 * sessions?", though the first shares more of its words. Among the wishes proper, one stated for what
 * the question asks about goes first (conditionFit): "Always highlight changes in budget allocations
 * when I ask about financial goals" governs "What are my financial goals this year?" rather than
 * "I prefer Excel for my budget", which shares a word and more of the meaning.
 */
export function rankWishes<T extends VectorHit>(candidates: readonly T[], question: Float32Array, k: number, questionText = ''): T[] {
  const texts = new Set<string>();
  const wishes = candidates.filter((hit) => {
    if (texts.has(hit.textHash) || !holdsUserWish(hit.text)) return false;
    texts.add(hit.textHash);
    return true;
  });
  const byMeaning = [...wishes].sort((a, b) => similarity(b, question) - similarity(a, question));
  const score = new Map<T, number>();
  wishes.forEach((hit, rank) => score.set(hit, 1 / (k + rank + 1)));
  byMeaning.forEach((hit, rank) => score.set(hit, score.get(hit)! + 1 / (k + rank + 1)));
  const proper = new Set(wishes.filter((hit) => statesWish(hit.text)));
  const asked = stemmedWords(questionText);
  const fit = new Map(wishes.map((hit) => [hit, proper.has(hit) ? conditionFit(hit.text, asked) : 0]));
  return [...wishes].sort((a, b) => Number(proper.has(b)) - Number(proper.has(a)) || fit.get(b)! - fit.get(a)! || score.get(b)! - score.get(a)!).slice(0, WISH_RESULTS);
}

/**
 * What a wish is stated for, in the words of a user message: "when I ask about timeline details",
 * "whenever I ask for code examples", "if I'm asking about", "each time we discuss ...", to the end of
 * the clause. Read in English only, as the wishes are.
 */
const CONDITION =
  /\b(?:when(?:ever)?|if|each time|every time)\s+(?:I|we)\s*(?:['\u2019]m\s+|am\s+|are\s+)?(?:ask(?:ing)?|request(?:ing)?|need(?:ing)?|want(?:ing)?|look(?:ing)? for|inquir\w*|talk(?:ing)?|discuss(?:ing)?)\s+(?:you\s+)?(?:about\s+|for\s+|on\s+|regarding\s+)?([^.,!?;\n]+)/gi;

/** The topics a chunk's user messages state their wishes for (CONDITION). */
export function conditionsOf(text: string): string[] {
  return userSegments(text).flatMap(conditionsIn);
}

/** The topics one user message states its wishes for. */
function conditionsIn(segment: string): string[] {
  return [...segment.matchAll(CONDITION)].map((m) => m[1]!.trim()).filter((topic) => topic.length > 0);
}

/**
 * Words of a condition that name no topic. A short list on purpose: the `stopword` package's English
 * list (108 words, stemmed) in its place kept BEAM-100K to the digit and lost one instruction-following
 * request on BEAM-500K (48.09 / 56.39 -> 47.93 / 56.23: with fewer of its words counted, another
 * rule's condition fit "What are the costs related to my wellness activities?" better than "... when I
 * ask about wellness expenses").
 */
const NO_TOPIC = new Set(['i', 'me', 'my', 'we', 'our', 'a', 'an', 'the', 'about', 'for', 'on', 'of', 'to', 'in', 'and', 'or', 'ani', 'some', 'anyth', 'someth', 'it', 'that', 'thi', 'these', 'those']);

/**
 * How much of what a wish is stated for the question names: the largest share, over the wish's
 * conditions, of a condition's words (stemmed, less words that name no topic) among the question's.
 * 0 for a wish stated unconditionally.
 */
export function conditionFit(text: string, asked: ReadonlySet<string>): number {
  let best = 0;
  for (const condition of conditionsOf(text)) {
    const words = [...stemmedWords(condition)].filter((word) => !NO_TOPIC.has(word));
    if (words.length > 0) best = Math.max(best, words.filter((word) => asked.has(word)).length / words.length);
  }
  return best;
}

function similarity(hit: VectorHit, question: Float32Array): number {
  return hit.vector && hit.vector.length === question.length ? cosine(hit.vector, question) : 0;
}

/**
 * The share of a condition's words a question that is no request must hold at least for a rule stated
 * for it to join (rulesStatedFor): "holiday" of "holiday spending", not "bank" alone of "international
 * bank transfers". More than half was measured too, and found less on the held-out set
 * (docs/retrieval.md).
 */
const FIT_FOR_QUESTION = 0.5;

/** A question whose answer is a time: "When was the festival?", "What date is the filing?". */
const ASKS_WHEN = /^\s*(?:when|what (?:date|day|time))\b/i;

/** A rule about how to give dates or times ("Always format dates as Month Day, Year", "... exact dates", "... timelines"). */
const ABOUT_DATES = /\b(?:dates?|times?|timelines?)\b/i;

/** What a rule asks before the condition it is stated for: "Always format dates as ..." of "... when I ask about deadlines". */
const BEFORE_CONDITION = /\b(?:when(?:ever)?|if|each time|every time)\s+(?:I|we)\b/i;

/**
 * For a question that is no request ("When was the Montserrat Writers' Festival?", "How much am I
 * allowed to spend on my holiday plans?"), the rules the person stated for such questions: the answer is
 * in the record, but a rule still says how to give it ("Always format dates as Month Day, Year when I
 * ask about timeline details", "Always confirm budget caps when I ask about holiday spending"). A
 * wish proper joins when the question holds at least half of its condition's words (conditionFit), or
 * when the question asks when and the rule, stated for some questions, is about how to give dates or
 * times; the best fits first, each text once, at most RULES_FOR_QUESTION. Read from the chunks that
 * hold a wish's word most (the same for every question, so read once per version of the store): no
 * query more. English only, as the wishes are.
 */
export function rulesStatedFor<T extends VectorHit>(candidates: readonly T[], questionText: string): T[] {
  if (!mayBeEnglish(questionText)) return [];
  const asked = stemmedWords(questionText);
  const asksWhen = ASKS_WHEN.test(questionText);
  const texts = new Set<string>();
  const rules: Array<{ hit: T; fit: number }> = [];
  for (const hit of candidates) {
    if (texts.has(hit.textHash) || !statesWish(hit.text)) continue;
    texts.add(hit.textHash);
    const fit = conditionFit(hit.text, asked);
    if (fit >= FIT_FOR_QUESTION) rules.push({ hit, fit });
    else if (asksWhen && aboutDates(hit.text)) rules.push({ hit, fit: 0 });
  }
  return rules
    .sort((a, b) => b.fit - a.fit)
    .slice(0, RULES_FOR_QUESTION)
    .map(({ hit }) => hit);
}

/** Whether a user message of a chunk states a rule for some questions whose ask is about dates or times. */
function aboutDates(text: string): boolean {
  return userSegments(text).some((segment) => RULE.test(segment) && conditionsIn(segment).length > 0 && ABOUT_DATES.test(segment.split(BEFORE_CONDITION)[0]!));
}
