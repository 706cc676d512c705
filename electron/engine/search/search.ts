/** Finding chunks: the hybrid search, and one chunk with its nearest neighbours. */
import type { ChunkDetail, SearchHit } from '../../../shared/domain.js';
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import type { Candidate } from '../store/searchHits.js';
import type { SearchReads } from '../store/searchView.js';
import { collapseDuplicates } from './collapse.js';
import { byDistinctText, fuseByRank } from './rankFusion.js';
import { promptsFor, withPrompts } from './searchPrompts.js';
import { namesIn, topicOf, withoutNames } from './questionTopic.js';
import { quotedFirst } from './quotedPassage.js';
import { favourQuestionWords } from './questionWords.js';
import { favourNeighbours } from './neighbourTurns.js';
import { favourSaidTimes, favourSpan, loadTimeReading, timeSpanOf, type TimeSpan } from './timeInQuestion.js';
import { asksForHelp, rankWishes, RULE_WEIGHT, rulesStatedFor, WISH_POOL, WISH_WEIGHT, WISH_WORDS } from './standingWishes.js';

export interface SearchOptions {
  limit?: number;
  sessionId?: string;
  collapse?: boolean;
  /** When the question is asked (ms since 1970; default now): what "last week" or "in March" mean. */
  now?: number;
}

/**
 * Vector search and full-text search (storeSearch.ts) of what the question is about (less its words
 * about the conversations themselves: questionTopic.ts; the vector search less the names of the
 * store's speakers: speakersAmong), and for a request the asker's standing
 * wishes on its topic, for another question the rules the asker stated for such questions
 * (standingWishes.ts), merged by reciprocal rank; what was said within the time
 * the question names, or for a question asking when what says a time, scores higher (timeInQuestion.ts), and so
 * does a first candidate one line of which holds the question's rarer words (questionWords.ts); a
 * passage the question quotes comes first (quotedPassage.ts); the turn after each of the first
 * candidates, and the turn before a short one, scores at least a share of theirs (neighbourTurns.ts); one hit per chunk, and each memory once:
 * copies of a text in other chunks or sessions, identical or nearly so, are folded into the best of
 * them as `alsoIn` (collapse.ts) unless `collapse` is false. Every read of one search is at one
 * version of the store, the newest when it began (searchView.ts).
 */
export async function searchChunks(ctx: EngineContext, query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
  const limit = Math.max(1, Math.min(options.limit ?? 10, 200));
  const collapse = options.collapse ?? true;
  if (!query.trim()) throw new EngineError('invalid_input', 'the search query is empty');
  const topic = topicOf(query);
  // The topic is embedded while the store is asked for its newest version (searchView.ts).
  const embedded = ctx.embedder().then((embedder) => embedder.embed([topic]));
  embedded.catch(() => {});
  const embed = async (text: string) => (await (await ctx.embedder()).embed([text]))[0]!;
  await loadTimeReading();
  const span = timeSpanOf(query, new Date(options.now ?? Date.now()));
  return ctx.store.searching(async (reads) => {
    const [vector] = await embedded;
    return searchAt(reads, { query, topic, span }, vector!, embed, limit, collapse, options.sessionId);
  });
}

async function searchAt(reads: SearchReads, question: { query: string; topic: string; span: TimeSpan | null }, vector: Float32Array, embed: (text: string) => Promise<Float32Array>, limit: number, collapse: boolean, sessionId: string | undefined): Promise<SearchHit[]> {
  const { query, topic, span } = question;
  // The vector search looks with the topic's vector, or, once the first hits tell which of the
  // question's names are the store's speakers, with the topic's less those names (speakersAmong).
  const names = namesIn(topic);
  let looking = vector;
  let speakersRead = names.length === 0;
  // Scores are scaled so that a chunk ranked first by both searches scores 1 (a little more when other
  // parts of its message match too, or it is also a standing wish).
  const best = 2 / (SEARCH_RRF_K + 1);
  // The first `depth` texts of each search are fused, as many as results when not collapsing and more
  // when collapsing, so that folded copies leave room for distinct results. When collapsing, each
  // search reads deeper than that and ranks its hits by distinct text (byDistinctText): copies of a
  // text saved in many sessions take no place of their own, and the reserve fills the places they
  // would have taken. When copies, identical or nearly so, still crowd the list, the searches are
  // widened until it holds `limit` distinct results or the store has no more candidates.
  let depth = limit * (collapse ? 4 : 2);
  let pool = collapse ? Math.max(depth, FIRST_POOL) : depth;
  // The standing wishes are a pool of their own size: read once, whatever the pool of the searches. A
  // question that is no request brings only the rules stated for it, read from the wish words' hits alone.
  const request = asksForHelp(query);
  const wishes = request
    ? reads.textSearchFavouring(WISH_WORDS, topic, WISH_POOL, sessionId).then((hits) => rankWishes(hits, vector, SEARCH_RRF_K, topic), () => [])
    : reads.requiredWordHits(WISH_WORDS, WISH_POOL, sessionId).then((hits) => rulesStatedFor(hits, topic), () => []);
  for (;;) {
    // The pools are read without their texts and vectors, then those of the hits kept (candidateTexts).
    const [byVector, byText, wished] = await Promise.all([
      reads.vectorCandidates(looking, pool, sessionId),
      reads.textCandidates(topic, pool, sessionId).catch(() => []),
      wishes,
    ]);
    const kept = (list: Candidate[]) => (collapse ? byDistinctText(list, depth) : { hits: list, ranks: undefined });
    let v = kept(byVector);
    const t = kept(byText);
    const [firstVectorHits, textHits] = await reads.candidateTexts([v.hits, t.hits]);
    let vectorHits = firstVectorHits!;
    // Read once, from the first round's hits; a widened round looks with the same vector.
    if (!speakersRead) {
      speakersRead = true;
      const speakers = speakersAmong(names, [textHits!, vectorHits]);
      if (speakers.length > 0) {
        looking = await embed(withoutNames(topic, speakers));
        v = kept(await reads.vectorCandidates(looking, pool, sessionId));
        vectorHits = (await reads.candidateTexts([v.hits]))[0]!;
      }
    }
    const weights = [1, 1, request ? WISH_WEIGHT : RULE_WEIGHT];
    const ranked = byMessage(fuseByRank([vectorHits, textHits!, wished], SEARCH_RRF_K, weights, [v.ranks, t.ranks]));
    const timed = span ? await favourSpan(reads, ranked, span, depth) : ranked;
    const fused = await favourNeighbours(reads, quotedFirst(query, favourQuestionWords(topic, favourSaidTimes(query, timed, depth))));
    if (!collapse) return toHits(fused.slice(0, limit).map((f) => ({ ...f, alsoIn: [] })), best);
    // Hits have their vectors (the full text's too); one that lacks it is read before the fold.
    const missing = fused.filter(({ hit }) => !hit.vector).map(({ hit }) => hit.chunkId);
    if (missing.length > 0) {
      const vectors = await reads.vectorsByChunkId(missing);
      for (const { hit } of fused) hit.vector ??= vectors.get(hit.chunkId);
    }
    const distinct = collapseDuplicates(fused, limit * 2);
    const exhausted = byVector.length < pool && byText.length < pool;
    if (distinct.length >= limit || exhausted || pool >= MAX_CANDIDATES) {
      // The other halves of the turns are read once the results are known, not for a pool about to be widened.
      const prompts = await promptsFor(reads, distinct.slice(0, limit + PROMPT_SPARE).map(({ hit }) => hit));
      return toHits(diversify(withPrompts(distinct, prompts)).slice(0, limit), best);
    }
    depth = Math.min(depth * 4, MAX_CANDIDATES);
    pool = Math.min(pool * 4, MAX_CANDIDATES);
  }
}

/**
 * A message several of whose parts match is more likely the one sought than a message of which one
 * part does: the best-scored chunk of a message (of the same messages in the same session) gains
 * SAME_MESSAGE_WEIGHT of the scores of its other parts among the candidates. A copy of the message in
 * another session is not another part of it (it is folded into it later), nor is a part that repeats
 * another's text word for word (copies share a rank: byDistinctText). So does a turn: a result shows
 * its turn, the request with the reply (searchPrompts.ts), and a turn whose request and reply both
 * match is more likely the one sought than one of which only one does: the best of a turn's messages
 * gains SAME_TURN_WEIGHT of the scores of its other message (each message's best part; turnOf). Best
 * first again.
 */
export function byMessage<T extends { hit: { sessionId: string; msgIds: string[]; textHash?: string; seq?: number; text?: string }; score: number }>(fused: readonly T[]): T[] {
  const best = new Map<string, T>();
  const extra = new Map<T, number>();
  const parts = new Set<string>();
  for (const entry of fused) {
    if (entry.hit.msgIds.length === 0) continue;
    const key = [entry.hit.sessionId, ...entry.hit.msgIds].join('\u0000');
    if (entry.hit.textHash !== undefined) {
      const part = `${key}\u0000${entry.hit.textHash}`;
      if (parts.has(part)) continue;
      parts.add(part);
    }
    const first = best.get(key);
    if (!first) best.set(key, entry);
    else extra.set(first, (extra.get(first) ?? 0) + entry.score);
  }
  const turns = new Map<string, T>();
  const turnExtra = new Map<T, number>();
  for (const entry of best.values()) {
    const turn = turnOf(entry.hit);
    if (turn === undefined) continue;
    const first = turns.get(turn);
    if (!first) turns.set(turn, entry);
    else turnExtra.set(first, (turnExtra.get(first) ?? 0) + entry.score);
  }
  return fused
    .map((entry) => ({ ...entry, score: entry.score + SAME_MESSAGE_WEIGHT * (extra.get(entry) ?? 0) + SAME_TURN_WEIGHT * (turnExtra.get(entry) ?? 0) }))
    .sort((a, b) => b.score - a.score);
}

/** How much the other matching parts of a message add to its best part's score. */
export const SAME_MESSAGE_WEIGHT = 0.3;

/** How much the other message of a turn (its request, or its reply) adds to the score of the turn's best. */
export const SAME_TURN_WEIGHT = 0.3;

/**
 * The turn a chunk of one message belongs to, as a key: a user message and the assistant message
 * after it are one turn (a chunk's first line names its role: chunker.ts). A chunk that packs several
 * messages, and a chunk whose lines name their speakers (a chat between people, where either may
 * speak twice in a row), belong to no turn but their own.
 */
function turnOf(hit: { sessionId: string; msgIds: string[]; seq?: number; text?: string }): string | undefined {
  if (hit.msgIds.length !== 1 || hit.seq === undefined || hit.text === undefined) return undefined;
  if (hit.text.startsWith('user: ')) return `${hit.sessionId}\u0000${hit.seq}`;
  if (hit.text.startsWith('assistant: ')) return `${hit.sessionId}\u0000${hit.seq - 1}`;
  return undefined;
}

/**
 * Each message once before any twice: a result whose messages all appear in better results (another
 * part of a long message already shown) moves behind the results that bring messages of their own.
 */
export function diversify<T extends { hit: { msgIds: string[] } }>(results: readonly T[]): T[] {
  const shown = new Set<string>();
  const first: T[] = [];
  const later: T[] = [];
  for (const result of results) {
    if (result.hit.msgIds.length > 0 && result.hit.msgIds.every((id) => shown.has(id))) later.push(result);
    else {
      first.push(result);
      for (const id of result.hit.msgIds) shown.add(id);
    }
  }
  return [...first, ...later];
}

/**
 * The rank constant of the fusion: smaller than the usual 60, so that a chunk that one search ranks
 * first outweighs one that both rank far down.
 */
export const SEARCH_RRF_K = 10;

/** Candidates past the limit whose requests are looked up too (a result that brings no new message moves down). */
const PROMPT_SPARE = 5;

/**
 * The fewest hits each search reads when collapsing: as many as the vector search re-ranks by exact
 * distance anyway (storeSearch.ts), and enough that a passage stored ten times over still leaves ten
 * distinct texts without a second round.
 */
const FIRST_POOL = 160;

/** The widest candidate pool one search reads (a store of copies upon copies stops here). */
const MAX_CANDIDATES = 2_000;

function toHits(results: Array<{ hit: { chunkId: string; sessionId: string; text: string; msgIds: string[] }; score: number; alsoIn: SearchHit['alsoIn'] }>, best: number): SearchHit[] {
  return results.map(({ hit, score, alsoIn }) => ({ chunkId: hit.chunkId, sessionId: hit.sessionId, text: hit.text, msgIds: hit.msgIds, score: Math.round((score / best) * 10_000) / 10_000, alsoIn }));
}

export async function inspectChunk(ctx: EngineContext, chunkId: string, similarCount = 5): Promise<ChunkDetail> {
  const chunk = await ctx.store.chunk(chunkId);
  if (!chunk) throw new EngineError('not_found', `no chunk "${chunkId}" in this store`);
  const similar = await ctx.store.searching((reads) => reads.vectorSearch(chunk.vector, similarCount, undefined, chunkId));
  return {
    chunkId: chunk.chunkId,
    sessionId: chunk.sessionId,
    text: chunk.text,
    msgIds: chunk.msgIds,
    createdAt: new Date(chunk.createdAt).toISOString(),
    model: ctx.store.model.model,
    vector: Array.from(chunk.vector),
    similar: similar.map((h) => ({ chunkId: h.chunkId, sessionId: h.sessionId, text: h.text, msgIds: h.msgIds, score: Math.round((1 - h.distance) * 10_000) / 10_000, alsoIn: [] })),
  };
}

/**
 * The question's names that are speakers of the store: names that begin a line of a hit whose text
 * begins with a name (each message's line begins with its speaker's name, "Caroline: ...", or its
 * role: chunker.ts segmentLine; in a chunk of role lines, a line of a message that begins "Note: "
 * is no speaker's).
 * People who chat call each other by name ("Thanks, Melanie!", "Hey Caroline, ..."), so a speaker's
 * name pulls the question's vector toward the greetings and thanks said to that person rather than
 * toward what was said: "What did Melanie paint?" lands next to "Thanks, Melanie! That's really
 * sweet." The vector search looks without them; the full-text search and the question's words among
 * the first candidates keep them (a line that names its speaker tells who said what). A name that is
 * no speaker's stays: in a conversation with an assistant, whose lines begin with roles, a name in a
 * question is what was talked about ("Have I integrated Flask-Login?", "When was the Montserrat
 * Writers' Festival?"), and leaving it out costs recall (docs/retrieval.md).
 */
export function speakersAmong(names: readonly string[], lists: ReadonlyArray<ReadonlyArray<{ text: string }>>): string[] {
  const speakers = new Set<string>();
  for (const hits of lists) {
    for (const { text } of hits) {
      if (ROLE_START.test(text)) continue;
      for (const line of text.split('\n')) {
        const name = NAMED_LINE.exec(line)?.[1];
        if (name !== undefined) speakers.add(name);
      }
    }
  }
  return names.filter((name) => speakers.has(name));
}

const ROLE_START = /^(?:user|assistant|system|tool): /;
/** A line that begins with a name: in a chunk that begins with one, a message said by that person. */
const NAMED_LINE = /^([^\s:][^:\n]{0,39}): /;
