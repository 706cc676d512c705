/**
 * Real text with real vectors for the benchmarks' large stores. A store filled with random vectors
 * gives the near-duplicate check nothing to find and the vector index nothing like its real work,
 * so its figures are bounds, not results. These passages are messages of the generator's
 * conversations embedded by the model; one in five is a paraphrase of an earlier passage (as forks,
 * re-pasted text and retold answers leave in a real store), embedded on its own.
 *
 * Embedding tens of thousands of passages takes minutes, so they are kept under
 * `.cache/bench/` (texts as JSON, vectors as raw float32) and read back by later runs of the same
 * size and model. The cache is a benchmark's scratch, never the product's.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { MessageInput, SessionInput } from '../shared/domain.js';
import { cosine } from '../electron/engine/search/index.js';
import { chunkIdFor, contentHash, sha256 } from '../electron/engine/save/index.js';
import { ChunkStore, type ChunkRecord } from '../electron/engine/store/index.js';
import { realisticConversation, seededRandom } from './transcriptGenerator.js';

export interface Passage {
  role: 'user' | 'assistant';
  content: string;
  vector: Float32Array;
  /** Index of the passage this one paraphrases. */
  paraphraseOf?: number;
}

interface Embedder {
  readonly model: string;
  readonly dim: number;
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** Word and phrase swaps that keep a sentence's meaning: the generator's vocabulary, retold. */
const SWAPS: Array<[RegExp, string]> = [
  [/\bStart by looking at\b/g, 'Begin by examining'],
  [/\bThe usual problem with\b/g, 'The typical issue with'],
  [/\bsmall changes add up over several weeks\b/g, 'minor edits accumulate over a few weeks'],
  [/\bneeds more patience but less money\b/g, 'takes more time but costs less'],
  [/\bWrite down what you observe each day\b/g, 'Note what you see every day'],
  [/\bmemory is unreliable here\b/g, 'you cannot trust your memory here'],
  [/\bstill misbehaves after that\b/g, 'keeps acting up after that'],
  [/\bthe cause is probably\b/g, 'the likely culprit is'],
  [/\bMost people skip this step\b/g, 'Many people leave this step out'],
  [/\bthe one that matters most\b/g, 'the one that counts the most'],
  [/\bA good rule of thumb is\b/g, 'A sensible habit is'],
  [/\bchange one variable at a time and wait\b/g, 'alter a single factor at once and then pause'],
  [/\bpreparation, the change itself, and checking the result\b/g, 'getting ready, making the change, and verifying the outcome'],
  [/\bDo not worry if the first attempt fails\b/g, 'Don\'t fret when the first try does not work'],
  [/\brarely works the first time\b/g, 'seldom succeeds at once'],
  [/\bExperts disagree on the details of\b/g, 'Specialists differ on the specifics of'],
  [/\bthey agree on the basics\b/g, 'they share the fundamentals'],
  [/\bKeep an eye on\b/g, 'Watch'],
  [/\btends to interfere with\b/g, 'often gets in the way of'],
  [/\bIn practice, a simple approach to\b/g, 'Practically speaking, a plain approach to'],
  [/\bbeats a clever one\b/g, 'works better than a smart one'],
  [/\bOnce this is stable, revisit\b/g, 'When this is steady, come back to'],
  [/\bcompare notes\b/g, 'compare the results'],
  [/\bThe numbers only make sense when you measure them the same way every time\b/g, 'Figures mean something only if you measure them identically each time'],
  [/\bHow should I handle\b/g, 'What is the right way to deal with'],
  [/\bCan you explain\b/g, 'Could you describe'],
  [/\bin simple terms\b/g, 'plainly'],
  [/\bWhat is the most common mistake people make with\b/g, 'Which error do people make most often with'],
  [/\bI tried\b/g, 'I attempted'],
  [/\bit did not work\b/g, 'it failed'],
  [/\bWhat did I miss\b/g, 'What did I overlook'],
  [/\bworth the effort compared with\b/g, 'worth it next to'],
  [/\bGive me a short checklist for\b/g, 'List the steps for'],
  [/\bWhy does\b/g, 'How come'],
  [/\bWhat would you do first about\b/g, 'Where would you begin with'],
];

/** The same message told in other words: phrases swapped, and two sentences of a longer answer in the other order. */
export function paraphrase(content: string, random: () => number): string {
  let text = content;
  for (const [pattern, replacement] of SWAPS) text = text.replace(pattern, replacement);
  const sentences = text.split(/(?<=[.?!])\s+/);
  if (sentences.length >= 4) {
    const i = 1 + Math.floor(random() * (sentences.length - 2));
    [sentences[i], sentences[i + 1]] = [sentences[i + 1]!, sentences[i]!];
    text = sentences.join(' ');
  }
  return text === content ? `${content} (as I said before)` : text;
}

/** The chunk text the engine embeds for a one-message chunk. */
export function passageText(passage: Pick<Passage, 'role' | 'content'>): string {
  return `${passage.role}: ${passage.content}`;
}

function cacheName(embedder: Embedder, count: number): string {
  return `passages-v1-${embedder.model.replace(/[^\w.-]+/g, '_')}-${embedder.dim}-${count}`;
}

/**
 * `count` passages with their vectors (from the cache when a run of the same size made it).
 * Sessions of 200 messages from seeds 1000 and up; every fifth passage paraphrases an earlier one.
 */
export async function embeddedPassages(embedder: Embedder, count: number, cacheDir: string, log: (line: string) => void = () => {}): Promise<Passage[]> {
  const base = path.join(cacheDir, cacheName(embedder, count));
  if (existsSync(`${base}.json`) && existsSync(`${base}.f32`)) {
    const meta = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as Array<Omit<Passage, 'vector'>>;
    const raw = readFileSync(`${base}.f32`);
    const floats = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
    if (meta.length === count && floats.length === count * embedder.dim) {
      log(`  ${count} embedded passages read from ${base}.json`);
      return meta.map((m, i) => ({ ...m, vector: floats.slice(i * embedder.dim, (i + 1) * embedder.dim) }));
    }
  }
  const random = seededRandom(4242);
  const passages: Array<Omit<Passage, 'vector'>> = [];
  for (let seed = 1000; passages.length < count; seed++) {
    for (const message of realisticConversation(`pool-${seed}`, 200, seed).messages) {
      if (passages.length >= count) break;
      const role = message.role as 'user' | 'assistant';
      if (passages.length % 5 === 4) {
        const of = Math.floor(random() * passages.length);
        passages.push({ role: passages[of]!.role, content: paraphrase(passages[of]!.content, random), paraphraseOf: of });
      } else {
        passages.push({ role, content: message.content });
      }
    }
  }
  const vectors: Float32Array[] = [];
  const started = performance.now();
  for (let i = 0; i < passages.length; i += 64) {
    vectors.push(...(await embedder.embed(passages.slice(i, i + 64).map(passageText))));
    if (i % 6400 === 0 && i > 0) log(`  embedded ${i} of ${count} passages (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  log(`  embedded ${count} passages in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  mkdirSync(cacheDir, { recursive: true });
  const all = new Float32Array(count * embedder.dim);
  vectors.forEach((v, i) => all.set(v, i * embedder.dim));
  writeFileSync(`${base}.f32.tmp`, Buffer.from(all.buffer));
  renameSync(`${base}.f32.tmp`, `${base}.f32`);
  writeFileSync(`${base}.json`, JSON.stringify(passages));
  return passages.map((p, i) => ({ ...p, vector: vectors[i]! }));
}

/** How close the paraphrases came to what they retell: the check finds the pairs at or above its floor. */
export function paraphraseSimilarity(passages: readonly Passage[], floor: number): { pairs: number; atOrAboveFloor: number; median: number } {
  const sims = passages.filter((p) => p.paraphraseOf !== undefined).map((p) => cosine(p.vector, passages[p.paraphraseOf!]!.vector)).sort((a, b) => a - b);
  return { pairs: sims.length, atOrAboveFloor: sims.filter((s) => s >= floor).length, median: sims[Math.floor(sims.length / 2)] ?? Number.NaN };
}

/**
 * New messages for a probe: the generator's conversation of `seed` (text no store of the run holds
 * yet), with every fifth message replaced by a paraphrase of a stored passage of the same role, so
 * the near-duplicate check has copies to find as it would in a real store.
 */
export function freshMessages(sessionId: string, count: number, seed: number, passages: readonly Passage[], offset = 0): MessageInput[] {
  const random = seededRandom(seed + 77);
  const conversation: SessionInput = realisticConversation(sessionId, count + offset, seed);
  return conversation.messages.slice(offset).map((m, i) => {
    if (i % 5 !== 4 || passages.length === 0) return m;
    const sameRole = passages.filter((p, k) => k % 97 === (seed + i) % 97 && p.role === m.role);
    const source = sameRole[Math.floor(random() * sameRole.length)];
    return source ? { ...m, content: paraphrase(source.content, random) } : m;
  });
}

/** Questions a user of the archive might type, over the topics of the generator's conversations. */
const QUERY_LIST = [
  'how do I speed up a slow join',
  'what did we decide about the mortgage rate',
  'tips for keeping a sourdough starter alive',
  'night train to Vienna tickets',
  'knee pain after squats',
  'how to find the memory leak in the worker',
  'how much protein should I eat per day',
  'do I need travel insurance for a rental car',
  'the compost heap smells bad',
  'flaky integration test only fails in CI',
  'character arc for the main character',
  'why is the replication lag so high',
  'monthly budget that actually works',
  'index funds versus a savings account',
  'marathon training plan for beginners',
  'how to temper chocolate at home',
  'raised beds on clay soil',
  'TypeScript generics with constraints',
  'what helps with jet lag',
  'how big should an emergency fund be',
  'aphids on the roses',
  'connection pooling settings for postgres',
  'race condition in async code',
  'the release pipeline is too slow',
  'opening chapter feels flat',
  'hotel near the old town',
  'vegetable stock recipe',
  'interval runs heart rate zone',
  'tax deductions for freelancers',
  'drip irrigation for tomato seedlings',
  'when should I prune the apple tree',
  'schema migration without downtime',
  'dialogue that sounds natural',
  'what to bring as carry-on luggage',
  'vacuum and compaction settings',
  'weeknight curry with what is in the fridge',
  'how to write a query letter to an agent',
  'rest days between long runs',
  'build cache keeps getting invalidated',
  'what did you say about the dentist appointment',
];

/** `count` of those questions, drawn (with repeats) in a seeded order: every run asks the same. */
export function drawQueries(count: number): string[] {
  const random = seededRandom(11);
  return Array.from({ length: count }, () => QUERY_LIST[Math.floor(random() * QUERY_LIST.length)]!);
}

/**
 * A fill session of real passages with the model's own vectors: session `index` takes the next
 * `chunks` passages (wrapping round), one message and one chunk each.
 */
export function passageSession(index: number, chunks: number, passages: readonly Passage[]): ChunkRecord[] {
  const sessionId = `fill-${index.toString().padStart(5, '0')}`;
  const createdAt = Date.UTC(2025, 0, 1) + index * 3_600_000;
  const records: ChunkRecord[] = [];
  for (let c = 0; c < chunks; c++) {
    const passage = passages[(index * chunks + c) % passages.length]!;
    const msgId = `${sessionId}-m${c}`;
    const text = passageText(passage);
    records.push({
      chunkId: chunkIdFor(sessionId, [msgId]),
      sessionId,
      seq: c,
      part: 0,
      text,
      textHash: sha256(text),
      vector: passage.vector,
      msgIds: [msgId],
      owned: [{ msgId, role: passage.role, content: passage.content, contentHash: contentHash(passage.role, passage.content), seq: c, timestamp: new Date(createdAt + c * 45_000).toISOString() }],
      createdAt,
    });
  }
  return records;
}

/**
 * Writes fill sessions of `perSession` chunks (passageSession) into the store at `uri` until it holds
 * `target` fill chunks, committing `commitRows` rows at a time; returns how many it holds.
 */
export async function fillStoreTo(uri: string, from: number, target: number, passages: readonly Passage[], model: { model: string; dim: number }, perSession = 50, commitRows = 2_000): Promise<number> {
  const store = await ChunkStore.open(uri, model);
  try {
    let written = from;
    let batch: ChunkRecord[] = [];
    while (written + batch.length < target) {
      batch.push(...passageSession((written + batch.length) / perSession, perSession, passages));
      if (batch.length >= commitRows || written + batch.length >= target) {
        await store.commit(batch, { sessionId: batch[0]!.sessionId });
        written += batch.length;
        batch = [];
      }
    }
    return written;
  } finally {
    store.close();
  }
}
