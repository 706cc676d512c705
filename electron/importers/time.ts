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

function isoFromMillis(millis: number): string | undefined {
  const date = new Date(millis);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
