/**
 * Timestamps of the sources, turned into ISO 8601 (UTC). A timestamp that cannot be read is left
 * out rather than failing the import: it is metadata, not part of the conversation.
 */

/** Epoch seconds (ChatGPT, may be fractional) or milliseconds; a number above 1e11 is taken as ms. */
export function isoFromEpoch(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  // 1e11 seconds is the year 5138, 1e11 milliseconds is 1973: no real transcript is ambiguous.
  const millis = value > 1e11 ? value : value * 1000;
  return isoFromMillis(Math.round(millis));
}

export function isoFromEpochMillis(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  return isoFromMillis(Math.round(value));
}

/** An ISO 8601 string (or anything `Date.parse` reads unambiguously with a zone), normalised. */
export function isoFromDateString(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const millis = Date.parse(value);
  return Number.isNaN(millis) ? undefined : isoFromMillis(millis);
}

/**
 * A date and time as people and Markdown exporters write them: `2026-07-13 13:40:49Z`,
 * `2026-01-06 14:34`, `2026-03-31 19:32:39-0400`, ISO 8601. A time without a zone is read as UTC, so
 * that the same file gives the same timestamps on every machine.
 */
const WRITTEN_TIME = String.raw`(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)[ \t]*(Z|[+-]\d{2}:?\d{2})?`;
/** A line that is only such a time. */
const WRITTEN_TIME_LINE = new RegExp(String.raw`^[ \t]*${WRITTEN_TIME}[ \t]*$`, 'i');
/** Such a time at the end of a line (a label's parentheses, a heading). */
export const WRITTEN_TIME_AT_END = new RegExp(String.raw`${WRITTEN_TIME}[ \t]*$`, 'i');

/** The written time that is the whole of `text` (`'line'`) or ends it (`'end'`), normalised. */
export function isoFromWrittenTime(text: string, place: 'line' | 'end'): string | undefined {
  const time = (place === 'line' ? WRITTEN_TIME_LINE : WRITTEN_TIME_AT_END).exec(text);
  return time ? isoFromDateString(`${time[1]}T${time[2]}${time[3] ?? 'Z'}`) : undefined;
}

function isoFromMillis(millis: number): string | undefined {
  const date = new Date(millis);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
