/**
 * Splits dialogue into chunks for embedding.
 *
 * Rules, in order of strength:
 * 1. A chunk never exceeds the embedding model's input window (text past it would not be embedded).
 * 2. Whole turns (a user message and the replies that follow it) stay together when they fit.
 * 3. A new chunk starts where the topic shifts, measured by the lexical overlap of the next turn
 *    with the chunk so far.
 * A message longer than the window is split at sentence boundaries into parts, each in its own chunk
 * (or sharing one with neighbours when there is room).
 *
 * Decisions depend only on the chunk being built and the next piece, so chunking a suffix that
 * starts at a turn boundary yields the same chunks as chunking the whole: a save that was cut short
 * and is run again writes exactly the chunks a clean run would have written.
 */
import type { Role } from '../../../shared/domain.js';
import { chunkIdFor, sha256 } from './hashing.js';
import { runInSlices, runToEnd } from './timeSlices.js';

export interface ChunkableMessage {
  msgId: string;
  role: Role;
  content: string;
  /** Who said it, when the transcript names them: the line shows the name in place of the role. */
  speaker?: string;
}

export interface ChunkSegment {
  msgId: string;
  role: Role;
  speaker?: string;
  text: string;
  /** Which part of the message this is (0-based), and of how many. Whole messages are part 0 of 1. */
  part: number;
  parts: number;
}

export interface PlannedChunk {
  chunkId: string;
  text: string;
  textHash: string;
  /** Distinct message ids in order. */
  msgIds: string[];
  segments: ChunkSegment[];
  /** True when the chunk begins with the first message of a turn: a safe place to cut a write batch. */
  startsTurn: boolean;
}

export interface ChunkerOptions {
  /** Token budget of one chunk: the model's input window. */
  maxTokens: number;
  countTokens?: (text: string) => number;
  /** Below this lexical similarity, a new turn starts a new chunk. */
  topicShiftThreshold?: number;
  /**
   * The messages continue a turn that began before them (a session's last chunk reopened in the
   * middle of a long turn): the ones before the first user message are units of their own, as they
   * were when that turn was chunked whole, not a turn of their own.
   */
  continuesTurn?: boolean;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * A conservative estimate of subword tokens for the SentencePiece/WordPiece tokenizers we use:
 * CJK characters count one each, words about one token per four letters, punctuation one each.
 */
export function estimateTokens(text: string): number {
  let tokens = 1;
  for (const match of text.matchAll(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)) {
    const piece = match[0];
    if (CJK.test(piece)) tokens += 1;
    else if (/[\p{L}\p{N}]/u.test(piece)) tokens += Math.ceil(piece.length / 4);
    else tokens += 1;
  }
  return Math.ceil(tokens * 1.1);
}

/**
 * A message's line in the chunk text: `user: ...`, or `Caroline: ...` when the message names who
 * said it. A name is what a question asks by ("What did Caroline research?"), in both searches; the
 * role's word is not repeated with it, since role words on every line pull searches toward turns
 * alike in them.
 */
export function segmentLine(segment: Pick<ChunkSegment, 'role' | 'speaker' | 'text'>): string {
  return `${segment.speaker ?? segment.role}: ${segment.text}`;
}

/** A message's segment of one part or of a whole message, with its name when it has one. */
function segmentOf(m: ChunkableMessage, text: string, part: number, parts: number): ChunkSegment {
  return { msgId: m.msgId, role: m.role, ...(m.speaker ? { speaker: m.speaker } : {}), text, part, parts };
}

interface Unit {
  segments: ChunkSegment[];
  tokens: number;
  startsTurn: boolean;
}

export function chunkDialogue(sessionId: string, messages: readonly ChunkableMessage[], options: ChunkerOptions): PlannedChunk[] {
  return runToEnd(chunkSteps(sessionId, messages, options));
}

/**
 * The same, giving the event loop a turn every few milliseconds: a save of thousands of messages
 * must not stall the thread that also serves the UI.
 */
export function chunkDialogueAsync(sessionId: string, messages: readonly ChunkableMessage[], options: ChunkerOptions): Promise<PlannedChunk[]> {
  return runInSlices(chunkSteps(sessionId, messages, options));
}

/** The chunker as steps: it pauses (yields) after each turn and each packed chunk. */
function* chunkSteps(sessionId: string, messages: readonly ChunkableMessage[], options: ChunkerOptions): Generator<void, PlannedChunk[]> {
  const countTokens = options.countTokens ?? estimateTokens;
  // Keep a margin: the estimate is not the model's tokenizer.
  const budget = Math.max(16, Math.floor(options.maxTokens * 0.9));
  const threshold = options.topicShiftThreshold ?? 0.04;

  const units: Unit[] = [];
  for (const [turnIndex, turn] of groupTurns(messages).entries()) {
    const whole = turn.map((m) => segmentOf(m, m.content, 0, 1));
    const turnTokens = whole.reduce((sum, s) => sum + countTokens(segmentLine(s)), 0);
    // The rest of a turn that was too long for one unit: its messages stay units of their own.
    const continued = options.continuesTurn === true && turnIndex === 0 && turn[0]!.role !== 'user';
    if (turnTokens <= budget && !continued) {
      units.push({ segments: whole, tokens: turnTokens, startsTurn: true });
      continue;
    }
    turn.forEach((m, index) => {
      const startsTurn = index === 0 && !continued;
      const whole = segmentOf(m, m.content, 0, 1);
      const lineTokens = countTokens(segmentLine(whole));
      if (lineTokens <= budget) {
        units.push({ segments: [whole], tokens: lineTokens, startsTurn });
        return;
      }
      const prefix = countTokens(segmentLine({ ...whole, text: '' }));
      const parts = splitText(m.content, budget - prefix, countTokens);
      parts.forEach((text, part) => {
        const segment = segmentOf(m, text, part, parts.length);
        units.push({ segments: [segment], tokens: countTokens(segmentLine(segment)), startsTurn: startsTurn && part === 0 });
      });
    });
    yield;
  }

  const chunks: PlannedChunk[] = [];
  let current: Unit | null = null;
  for (const unit of units) {
    if (current && current.tokens + unit.tokens <= budget && !(unit.startsTurn && topicShifts(current, unit, threshold))) {
      current = { segments: [...current.segments, ...unit.segments], tokens: current.tokens + unit.tokens, startsTurn: current.startsTurn };
      continue;
    }
    if (current) chunks.push(toChunk(sessionId, current));
    current = unit;
    yield;
  }
  if (current) chunks.push(toChunk(sessionId, current));
  return chunks;
}

/** A turn begins at each user message; anything before the first user message is a turn of its own. */
function groupTurns(messages: readonly ChunkableMessage[]): ChunkableMessage[][] {
  const turns: ChunkableMessage[][] = [];
  for (const m of messages) {
    const last = turns[turns.length - 1];
    if (!last || m.role === 'user') turns.push([m]);
    else last.push(m);
  }
  return turns;
}

function toChunk(sessionId: string, unit: Unit): PlannedChunk {
  const text = unit.segments.map(segmentLine).join('\n');
  const keys = unit.segments.map((s) => (s.parts === 1 ? s.msgId : `${s.msgId}#${s.part}/${s.parts}`));
  const msgIds: string[] = [];
  for (const s of unit.segments) if (msgIds[msgIds.length - 1] !== s.msgId) msgIds.push(s.msgId);
  return { chunkId: chunkIdFor(sessionId, keys), text, textHash: sha256(text), msgIds, segments: unit.segments, startsTurn: unit.startsTurn };
}

/** Splits text into pieces within the budget: at sentence ends first, then at words, then at characters. */
export function splitText(text: string, budget: number, countTokens: (text: string) => number): string[] {
  const sentences = text.match(/[^.!?。！？\n]+(?:[.!?。！？]+|\n+|$)\s*/gu) ?? [text];
  const pieces: string[] = [];
  for (const sentence of sentences) {
    if (countTokens(sentence) <= budget) pieces.push(sentence);
    else pieces.push(...splitLong(sentence, budget, countTokens));
  }
  // Token counts of pieces add up (an estimate never undercounts a join), so sum them instead of
  // re-counting the growing part for every piece.
  const parts: string[] = [];
  let current = '';
  let currentTokens = 0;
  for (const piece of pieces) {
    const pieceTokens = countTokens(piece);
    if (current && currentTokens + pieceTokens > budget) {
      parts.push(current.trim());
      current = '';
      currentTokens = 0;
    }
    current += piece;
    currentTokens += pieceTokens;
  }
  if (current.trim()) parts.push(current.trim());
  return parts.filter((p) => p.length > 0);
}

function splitLong(sentence: string, budget: number, countTokens: (text: string) => number): string[] {
  // Words where there are spaces, single characters for scripts written without them.
  const atoms = sentence.match(/\S+\s*|\s+/gu) ?? [sentence];
  const out: string[] = [];
  let current = '';
  let currentTokens = 0;
  for (const atom of atoms) {
    const pieces = countTokens(atom) > budget ? Array.from(atom) : [atom];
    for (const piece of pieces) {
      const pieceTokens = countTokens(piece);
      if (current && currentTokens + pieceTokens > budget) {
        out.push(current);
        current = '';
        currentTokens = 0;
      }
      current += piece;
      currentTokens += pieceTokens;
    }
  }
  if (current) out.push(current);
  return out;
}

const STOP_WORDS = new Set(
  'the and for are but not you all any can had her was one our out has his how its may new now old see two way who did get let put say she too use that with have this will your from they know want been good much some time very when come here just like long make many more only over such take than them well were what into also then there their which would about could should these those other after where while'.split(' '),
);

function termVector(text: string): Map<string, number> {
  const terms = new Map<string, number>();
  const add = (term: string) => terms.set(term, (terms.get(term) ?? 0) + 1);
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = match[0];
    if (CJK.test(word)) {
      // Character bigrams stand in for words in scripts without spaces.
      const chars = Array.from(word);
      if (chars.length === 1) add(word);
      for (let i = 0; i + 1 < chars.length; i++) add(chars[i]! + chars[i + 1]!);
    } else if (word.length >= 3 && !STOP_WORDS.has(word)) {
      add(word);
    }
  }
  return terms;
}

export function lexicalSimilarity(a: string, b: string): number {
  const va = termVector(a);
  const vb = termVector(b);
  if (va.size === 0 || vb.size === 0) return 1; // nothing to compare: no evidence of a shift
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [term, count] of va) {
    na += count * count;
    dot += count * (vb.get(term) ?? 0);
  }
  for (const count of vb.values()) nb += count * count;
  return dot / Math.sqrt(na * nb);
}

function topicShifts(current: Unit, next: Unit, threshold: number): boolean {
  const text = (u: Unit) => u.segments.map((s) => s.text).join('\n');
  return lexicalSimilarity(text(current), text(next)) < threshold;
}
