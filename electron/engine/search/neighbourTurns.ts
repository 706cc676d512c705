/**
 * The turns next to the best results. A question is often answered just after the turn that matches it:
 * "What did Joanna do after the rejection?" matches "another rejection from a production company",
 * and the answer is the next message, "I won't let it slow me down, I'm gonna keep grinding", which
 * shares neither words nor much meaning with the question. So the chunk just after each of the first
 * NEIGHBOUR_SOURCES candidates (the nearest in its session that starts with another message: the
 * other parts of a long message are skipped) scores at least NEIGHBOUR_WEIGHT of that candidate's
 * score. Read through the session index, the rows from each place on (storeLookups.ts chunksBeside).
 *
 * A short message leans on the one before it: "Yeah, I painted that lake sunrise last year!" answers
 * the photo of a painting shown just before. So a first candidate of at most SHORT_SOURCE_CHARS
 * characters lends the same share to the chunk just before it too, read in the same query. Lent from every
 * candidate, the turn before cost more than it found on long messages (docs/retrieval.md).
 */
import type { SearchReads } from '../store/searchView.js';
import type { VectorHit } from '../store/storeRows.js';
import { placed, placeOf } from './searchPrompts.js';

/** How many of the first candidates lend the turn after them a share of their score. */
export const NEIGHBOUR_SOURCES = 3;

/** The share of a candidate's score the turn after it scores at least. */
export const NEIGHBOUR_WEIGHT = 0.5;

/** The longest first candidate (its chunk's text, in characters) that also lends the turn before it a share. */
export const SHORT_SOURCE_CHARS = 300;

/** A candidate: a chunk and its score. */
export interface Scored {
  hit: VectorHit;
  score: number;
}

/**
 * The candidates with the turns after the first NEIGHBOUR_SOURCES, and before the short ones among
 * them (see above), added or raised. Best first again. A neighbour that was no candidate joins as a
 * chunk and its score alone.
 */
export async function favourNeighbours(reads: Pick<SearchReads, 'chunksBeside'>, fused: readonly Scored[]): Promise<Scored[]> {
  const sources = fused.slice(0, NEIGHBOUR_SOURCES).filter(({ hit }) => placed(hit));
  if (sources.length === 0) return [...fused];
  const short = sources.filter(({ hit }) => hit.text.length <= SHORT_SOURCE_CHARS);
  const { after, before } = await reads.chunksBeside(sources.map(({ hit }) => placeOf(hit)), short.map(({ hit }) => placeOf(hit)));
  const lent = new Map<string, Scored>();
  const lend = (source: Scored, neighbour: VectorHit | undefined) => {
    const score = NEIGHBOUR_WEIGHT * source.score;
    if (neighbour && (lent.get(neighbour.chunkId)?.score ?? -1) < score) lent.set(neighbour.chunkId, { hit: neighbour, score });
  };
  sources.forEach((source, i) => lend(source, after[i]));
  short.forEach((source, i) => lend(source, before[i]));
  const out = fused.map((entry) => {
    const share = lent.get(entry.hit.chunkId);
    if (!share) return entry;
    lent.delete(entry.hit.chunkId);
    return share.score > entry.score ? { ...entry, score: share.score } : entry;
  });
  out.push(...lent.values());
  return out.sort((a, b) => b.score - a.score);
}
