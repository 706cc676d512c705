/**
 * The time a question speaks of ("in March 2024", "between April and May", "last week", "on June 3",
 * "two days ago"), read with chrono-node relative to when it is asked, as one span of time: from the
 * start of the earliest time it names to the end of the latest. A time of day or a weekday alone
 * ("after 7 PM", "on Tuesdays") names no span: habits are not dates. A month or day named without its
 * year is the latest one not after `now` (a memory is of the past).
 *
 * The question is read in the language its script tells (textLanguage.ts), with chrono-node's parser
 * for it: English for the Latin script, Chinese ("三月", "昨天", "2024年4月到5月"), Japanese, Russian and
 * Ukrainian for theirs; a question in another script names no time. So an English phrase or a bare
 * "10/12" inside a Chinese question is not read as a date by the English rules.
 */
import type * as Chrono from 'chrono-node';
import type { SearchReads } from '../store/searchView.js';
import { placed, placeOf, type PromptableHit } from './searchPrompts.js';
import { languageOf, type TextLanguage } from './textLanguage.js';

export interface TimeSpan {
  from: number;
  to: number;
}

type Component = 'year' | 'month' | 'day';

const DAY = 86_400_000;

/**
 * chrono-node, once loaded (loadTimeReading). It is loaded on the first search, not with this module:
 * its few hundred files take a third of a second of CPU, which every run of the CLI (a save, a hook,
 * `sessions`) would pay for otherwise, though only a search reads times.
 */
let chrono: typeof Chrono | undefined;
let loading: Promise<void> | undefined;

/** Loads chrono-node for the functions below; a search awaits it before it reads its question. */
export function loadTimeReading(): Promise<void> {
  loading ??= import('chrono-node').then((loaded) => {
    chrono = loaded;
  });
  return loading;
}

function loaded(): typeof Chrono {
  if (!chrono) throw new Error('reading the time of a text needs chrono-node: await loadTimeReading() first');
  return chrono;
}

/** chrono-node's parser for each language told by its script (chrono.parse is its English one). */
const PARSERS: Partial<Record<TextLanguage, (text: string, now: Date) => Chrono.ParsedResult[]>> = {
  latin: (text, now) => loaded().parse(text, now),
  zh: (text, now) => loaded().zh.parse(text, now),
  ja: (text, now) => loaded().ja.parse(text, now),
  ru: (text, now) => loaded().ru.parse(text, now),
  uk: (text, now) => loaded().uk.parse(text, now),
};

/** The span of time the question names, or null when it names none. */
export function timeSpanOf(question: string, now: Date): TimeSpan | null {
  const spans = timeSpansOf(question, now);
  if (spans.length === 0) return null;
  return { from: Math.min(...spans.map((s) => s.from)), to: Math.max(...spans.map((s) => s.to)) };
}

/**
 * Each time a text names, as a span (see the top of this file), read relative to `now` in the
 * language its script tells: "last month" said on April 10 is March.
 */
export function timeSpansOf(text: string, now: Date): TimeSpan[] {
  const parse = PARSERS[languageOf(text)];
  if (!parse) return [];
  const spans: TimeSpan[] = [];
  for (const result of parse(text, now)) {
    // "from July through September 2024": the start is in the end's year.
    const endYear = result.end?.isCertain('year') ? result.end.get('year') ?? undefined : undefined;
    const start = spanOf(result.start, now, endYear);
    if (!start) continue;
    const end = result.end ? spanOf(result.end, now) : null;
    // "last week", "two weeks ago": chrono names the day a week back; the span is that week.
    const week = /\bweeks?\b/i.test(result.text) && !result.end ? 3 * DAY : 0;
    spans.push({ from: start.from - week, to: (end && end.to > start.from ? end.to : start.to) + week });
  }
  return spans;
}

/** The day, month or year a parsed date names (the finest it was told), in UTC; null for a time of day or a weekday alone. */
function spanOf(date: Chrono.ParsedComponents, now: Date, yearOfEnd?: number): TimeSpan | null {
  const told = (c: Component) => date.isCertain(c);
  if (!told('day') && !told('month') && !told('year')) return null;
  const unit: Component = told('day') ? 'day' : told('month') ? 'month' : 'year';
  let year = told('year') ? date.get('year')! : (yearOfEnd ?? date.get('year') ?? now.getUTCFullYear());
  const month = unit === 'year' ? 0 : (date.get('month') ?? 1) - 1;
  const day = unit === 'day' ? (date.get('day') ?? 1) : 1;
  const span = (y: number): TimeSpan => {
    const from = Date.UTC(y, month, day);
    const to = unit === 'day' ? Date.UTC(y, month, day + 1) : unit === 'month' ? Date.UTC(y, month + 1, 1) : Date.UTC(y + 1, 0, 1);
    return { from, to: to - 1 };
  };
  if (!told('year') && yearOfEnd === undefined && span(year).from > now.getTime()) year -= 1;
  return span(year);
}

/** How much more a candidate said within the question's time span scores (times 1 + this). */
export const WITHIN_SPAN_BOOST = 2;

/**
 * Days after the span that still count as within it: what people did is often told a few days later
 * ("we went camping last weekend"), so "When did Melanie go camping in June?" finds the message of
 * July 3 that tells of it.
 */
export const TOLD_AFTER = 7 * DAY;

/**
 * The candidates, those whose first message was said within `span` (or up to TOLD_AFTER after it),
 * or whose text tells of a time within it, read relative to when it was said ("My colleagues and I
 * went to a convention last month", said on April 10, for "What did John attend in March?"), scoring
 * WITHIN_SPAN_BOOST more: a boost, not a filter, since a date in a question can also be one said in
 * the text ("the deadline on May 3"). Reads the first message of at most `count` candidates (one
 * lookup); candidates without a time keep their score. Best first again.
 */
export async function favourSpan<T extends { hit: PromptableHit; score: number }>(reads: Pick<SearchReads, 'messagesAround'>, fused: readonly T[], span: TimeSpan, count: number): Promise<T[]> {
  const head = fused.slice(0, count).filter(({ hit }) => placed(hit));
  if (head.length === 0) return [...fused];
  const around = await reads.messagesAround(head.map(({ hit }) => placeOf(hit)));
  const within = new Set<T>();
  head.forEach((entry, i) => {
    const time = Date.parse(around[i]?.first?.timestamp ?? '');
    if (time >= span.from && time <= span.to + TOLD_AFTER) within.add(entry);
    else if (Number.isFinite(time) && timeSpansOf(entry.hit.text, new Date(time)).some((told) => told.from <= span.to && told.to >= span.from)) within.add(entry);
  });
  if (within.size === 0) return [...fused];
  return fused.map((entry) => (within.has(entry) ? { ...entry, score: entry.score * (1 + WITHIN_SPAN_BOOST) } : entry)).sort((a, b) => b.score - a.score);
}

/** How much more a candidate that says a time scores for a question that asks when (times this). */
export const SAYS_WHEN_BOOST = 1.5;

/** An English question that asks when something happened: "When did ...", "What day ...", "How long ago ...". */
export function asksWhen(question: string): boolean {
  return languageOf(question) === 'latin' && /^\s*(?:when|how long ago|what (?:day|date|month|year))\b/i.test(question);
}

/**
 * For a question that asks when (asksWhen), the first `count` candidates whose text says a time
 * ("yesterday", "last week", "in May", "on the 3rd", read with chrono-node's English parser) score
 * SAYS_WHEN_BOOST times as much: the message that answers "When did Caroline go to the support
 * group?" is the one that says "I went yesterday", dated by its session. Best first again.
 */
export function favourSaidTimes<T extends { hit: { text: string }; score: number }>(question: string, fused: readonly T[], count: number): T[] {
  if (!asksWhen(question)) return [...fused];
  return fused.map((entry, i) => (i < count && loaded().parse(entry.hit.text).length > 0 ? { ...entry, score: entry.score * SAYS_WHEN_BOOST } : entry)).sort((a, b) => b.score - a.score);
}
