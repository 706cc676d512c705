/**
 * A chunk's best-matching sentence. A chunk's vector is the meaning of all its sentences at once: a
 * part of a long reply one sentence of which says what was asked, among others about something else,
 * is drawn toward the others. So the sentences of the first PART_CANDIDATES candidates that have more
 * than one are embedded at search time with the store's model, and a candidate whose best sentence is
 * nearer the question than the chunk as a whole scores (1 + PART_WEIGHT x the difference in cosine
 * similarity) times as much. A chunk that is one sentence, or whose sentences are each further from
 * the question than all of them together, keeps its score.
 *
 * Sentences are cut at the end marks of any script (. ! ? and their CJK forms) and at line breaks; a
 * piece shorter than MIN_PART_CHARS joins the next. No words are read; the role lines ("user: ") are
 * not part of a sentence.
 */
import type { VectorHit } from '../store/storeRows.js';

/** How many of the first candidates are read for their best sentence. */
export const PART_CANDIDATES = 20;

/** How much more a candidate scores per unit of cosine similarity its best sentence is nearer the question than it is. */
export const PART_WEIGHT = 1;

/** The most sentences embedded in one search (the first candidates' first). */
export const MAX_PARTS = 120;

/** The shortest piece embedded on its own; a shorter one joins the next. */
export const MIN_PART_CHARS = 20;

const ROLE_LINE = /(^|\n)(?:user|assistant|system|tool): /g;
const SENTENCE_END = /(?<=[.!?])\s+|(?<=[。！？])|\n+/u;

/** Two pieces of a text as one: a space between them, but none after a CJK end mark (those scripts put none). */
const joined = (a: string, b: string) => `${a}${/[。！？]$/u.test(a) ? '' : ' '}${b}`;

/** The sentences of a chunk's text, short ones joined to the next. */
export function sentencesOf(text: string): string[] {
  const pieces = text.replace(ROLE_LINE, '$1').split(SENTENCE_END).map((p) => p.trim()).filter((p) => p.length > 0);
  const sentences: string[] = [];
  let pending = '';
  for (const piece of pieces) {
    pending = pending ? joined(pending, piece) : piece;
    if (pending.length >= MIN_PART_CHARS) {
      sentences.push(pending);
      pending = '';
    }
  }
  if (pending) {
    if (sentences.length > 0) sentences[sentences.length - 1] = joined(sentences[sentences.length - 1]!, pending);
    else sentences.push(pending);
  }
  return sentences;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * The candidates, the first PART_CANDIDATES of them favoured by their best sentence (see above), its
 * sentences embedded by `embed` (the store's model, as the question was). Best first again.
 */
export async function favourBestSentences<T extends { hit: Pick<VectorHit, 'text' | 'vector'>; score: number }>(
  question: Float32Array,
  fused: readonly T[],
  embed: (texts: string[]) => Promise<Float32Array[]>,
): Promise<T[]> {
  const head = fused.slice(0, PART_CANDIDATES);
  const texts: string[] = [];
  const at = new Map<string, number>();
  const read = head.map(({ hit }) => {
    if (!hit.vector) return [];
    const sentences = sentencesOf(hit.text);
    if (sentences.length < 2) return [];
    const kept: string[] = [];
    for (const sentence of sentences) {
      if (!at.has(sentence) && texts.length < MAX_PARTS) {
        at.set(sentence, texts.length);
        texts.push(sentence);
      }
      if (at.has(sentence)) kept.push(sentence);
    }
    return kept;
  });
  if (texts.length === 0) return [...fused];
  const vectors = await embed(texts);
  const lift = read.map((sentences, i) => {
    if (sentences.length === 0) return 0;
    const best = Math.max(...sentences.map((s) => cosine(question, vectors[at.get(s)!]!)));
    return Math.max(0, best - cosine(question, head[i]!.hit.vector!));
  });
  return fused.map((entry, i) => (i < head.length && lift[i]! > 0 ? { ...entry, score: entry.score * (1 + PART_WEIGHT * lift[i]!) } : entry)).sort((a, b) => b.score - a.score);
}
