/**
 * `npm run bench:recall -- [--set beam|locomo|realtalk] [--roles-only] --data <folder or file> [--only N] [--stores <folder>] [--misses <file>] [--json]`
 *
 * Retrieval on a public benchmark read at run time; nothing of either set is kept in this repository.
 *
 * `--set beam` (the default): BEAM (Tavakoli et al. 2025, "Beyond a Million Tokens: Benchmarking and
 * Enhancing Long-Term Memory in LLMs"), read from the folder given (its 100K split: `<n>/chat.json` or
 * `<n>/chat_trunecated.json`, `<n>/probing_questions.json`; its 500K and 1M splits keep the questions
 * in `<n>/probing_questions/probing_questions.json`). Each dated batch is one session, its
 * messages carry the batch's date, the user messages' ` ->-> b,t` bookkeeping tags are stripped.
 *
 * `--set locomo`: LoCoMo (Maharana et al. 2024, "Evaluating Very Long-Term Conversational Memory of LLM
 * Agents"), the file `data/locomo10.json` of github.com/snap-research/locomo (CC BY-NC 4.0; see
 * docs/retrieval.md for how to get it): 10 conversations between two people, 19-32 dated sessions
 * each. Each session is one session whose messages carry its date; the first speaker's messages are
 * the user's, the second's the assistant's, each with its speaker's name (the message's `speaker`, as
 * an importer of a chat between people gives it: the chunk text reads `Caroline: ...`); a shared photo
 * is the text LoCoMo gives for it (`[shares <caption>]` after the message, as LoCoMo's own retrieval
 * baseline reads it); message ids are LoCoMo's dialog ids (`D1:3`), which the questions' evidence names.
 * `--roles-only` leaves the names out (the chunk text reads `user: ...`), as stores were saved before
 * names were kept. Stores built with it are other stores: keep them apart. BEAM's speakers are a user
 * and an assistant, who have no names.
 *
 * `--set realtalk`: REALTALK's ten real chats between people, from the folder of their `Chat_*.json`
 * (scripts/recallRealtalk.ts), read as LoCoMo's are, each message with its own time.
 *
 * Each conversation goes into its own store through the engine as the app saves it. Every question with
 * evidence is searched as the app and the MCP tool search (the engine's search, limit 10, asked at the
 * time of the conversation's last part). Prints recall@5 and recall@10 (the share of a question's evidence
 * messages among the messages of the top 5/10 results, averaged over questions), any-hit@10 (questions
 * with at least one evidence message in the top 10), messages per result, search p50 and p95 and the
 * median CPU time of a search (the process's: its embedding worker's and LanceDB's threads included),
 * how many texts a search embeds (the question and any sentences search embeds) and how long it waits for them, the same
 * per question type (BEAM) or category (LoCoMo), and one JSON line.
 *
 * `--only N` measures the first N conversations. `--stores <folder>` keeps the stores there and reuses
 * them on the next run (for changes to search alone); without it they go in a temporary folder.
 * `--misses <file>` writes each question whose evidence is not all in the top 10 as one JSON line: its
 * type, recall, each evidence message (found or not, its session, role and text) and the results'
 * messages, scores and first 300 characters, to read where recall is lost.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { SessionInput } from '../shared/domain.js';
import { WorkerEmbedder, type Embedder } from '../electron/embedding/embedder.js';
import { ensureUseLiteEn } from '../electron/embedding/useLiteEn.js';
import { MemoryEngine } from '../electron/engine/engine.js';
import { realtalkConversations } from './recallRealtalk.js';

const { values } = parseArgs({
  options: {
    set: { type: 'string', default: 'beam' },
    'roles-only': { type: 'boolean', default: false },
    data: { type: 'string' },
    only: { type: 'string' },
    stores: { type: 'string' },
    limit: { type: 'string', default: '10' },
    json: { type: 'boolean', default: false },
    misses: { type: 'string' },
    models: { type: 'string', default: path.resolve('.cache/models') },
  },
});
if (!values.data || !['beam', 'locomo', 'realtalk'].includes(values.set!)) {
  console.error('usage: npm run bench:recall -- [--set beam|locomo|realtalk] --data <folder of BEAM conversations | locomo10.json | folder of REALTALK chats> [--only N] [--stores <folder>]');
  process.exit(2);
}
const DATA = path.resolve(values.data);
const LIMIT = Number(values.limit);
const log = (line: string) => (values.json ? console.error(line) : console.log(line));

interface BeamMessage {
  role: 'user' | 'assistant';
  id: number;
  content: string;
  time_anchor?: string;
}
interface BeamBatch {
  batch_number: number;
  time_anchor?: string | null;
  turns: BeamMessage[][];
}
interface Question {
  conversation: string;
  type: string;
  question: string;
  evidence: Set<string>;
}

/** `March-15-2024` as an ISO time (noon UTC, so that no time zone moves it to another day). */
function isoDate(anchor: string | undefined | null): string | undefined {
  if (!anchor) return undefined;
  const time = Date.parse(`${anchor.replace(/-/g, ' ')} 12:00 UTC`);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: cannot read it as JSON (${(error as Error).message})`);
  }
}

/** The sessions of one conversation: one per dated batch. */
function sessionsOf(dir: string, name: string): SessionInput[] {
  const truncated = path.join(dir, 'chat_trunecated.json');
  const file = existsSync(truncated) ? truncated : path.join(dir, 'chat.json');
  const batches = readJson(file);
  if (!Array.isArray(batches)) throw new Error(`${file}: expected a list of batches`);
  let date: string | undefined;
  return (batches as BeamBatch[]).map((batch, index) => {
    const messages = batch.turns.flat();
    date = isoDate(batch.time_anchor ?? messages.find((m) => m.time_anchor)?.time_anchor) ?? date;
    return {
      sessionId: `beam-${name}-${batch.batch_number ?? index + 1}`,
      source: 'json',
      messages: messages.map((m) => ({
        msgId: String(m.id),
        role: m.role,
        content: m.content.replace(/\s*->->\s*\d+\s*,\s*\d+\s*$/u, ''),
        ...(date ? { timestamp: date } : {}),
      })),
    };
  });
}

function idsIn(value: unknown, into: Set<string>): Set<string> {
  if (typeof value === 'number' && Number.isInteger(value)) into.add(String(value));
  else if (Array.isArray(value)) for (const v of value) idsIn(v, into);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) idsIn(v, into);
  return into;
}

/** A conversation's questions: `probing_questions.json` beside its chat (the 100K split) or in a folder of that name (500K, 1M). */
function questionsFile(dir: string): string | undefined {
  return [path.join(dir, 'probing_questions.json'), path.join(dir, 'probing_questions', 'probing_questions.json')].find((file) => existsSync(file));
}

function questionsOf(dir: string, name: string): Question[] {
  const file = questionsFile(dir)!;
  const byType = readJson(file) as Record<string, Array<{ question: string; source_chat_ids?: unknown }>>;
  const out: Question[] = [];
  for (const [type, list] of Object.entries(byType)) {
    for (const q of list) {
      const evidence = idsIn(q.source_chat_ids, new Set());
      if (evidence.size > 0) out.push({ conversation: name, type, question: q.question, evidence });
    }
  }
  return out;
}

interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface LocomoSample {
  sample_id: string;
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
  qa: Array<{ question: string; evidence?: unknown; category: number }>;
}

/** LoCoMo's question categories, as its paper and later work name them. */
const LOCOMO_CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };

/** `1:56 pm on 8 May, 2023` as an ISO time; LoCoMo names no time zone, so it is read as UTC. */
function locomoTime(text: unknown): string | undefined {
  const match = typeof text === 'string' ? /^(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})$/i.exec(text.trim()) : null;
  if (!match) return undefined;
  const [, h, m, half, day, month, year] = match;
  const hour = (Number(h) % 12) + (half!.toLowerCase() === 'pm' ? 12 : 0);
  const time = Date.parse(`${day} ${month} ${year} ${String(hour).padStart(2, '0')}:${m} UTC`);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** The conversations of LoCoMo's file, each with its sessions and its questions. */
function locomoConversations(file: string): Array<{ name: string; sessions: SessionInput[]; questions: Question[] }> {
  const samples = readJson(file);
  if (!Array.isArray(samples) || samples.some((x) => !x || typeof x !== 'object' || !('conversation' in x) || !Array.isArray((x as LocomoSample).qa))) {
    throw new Error(`${file}: expected LoCoMo's list of conversations (objects with "conversation" and "qa")`);
  }
  return (samples as LocomoSample[]).map((sample) => {
    const conv = sample.conversation;
    const numbers = Object.keys(conv)
      .map((key) => /^session_(\d+)$/.exec(key)?.[1])
      .filter((n): n is string => n !== undefined && Array.isArray(conv[`session_${n}`]))
      .map(Number)
      .sort((a, b) => a - b);
    const sessions: SessionInput[] = numbers.map((n) => {
      const date = locomoTime(conv[`session_${n}_date_time`]);
      if (!date) throw new Error(`${file}: ${sample.sample_id} session ${n}: cannot read its date "${String(conv[`session_${n}_date_time`])}"`);
      return {
        sessionId: `locomo-${sample.sample_id}-${n}`,
        source: 'json',
        messages: (conv[`session_${n}`] as LocomoTurn[]).map((turn) => ({
          msgId: turn.dia_id,
          role: turn.speaker === conv.speaker_a ? 'user' : 'assistant',
          ...(values['roles-only'] ? {} : { speaker: turn.speaker }),
          content: `${turn.text}${turn.blip_caption ? `\n[shares ${turn.blip_caption}]` : ''}`,
          timestamp: date,
        })),
      };
    });
    const questions: Question[] = [];
    for (const qa of sample.qa) {
      // A few evidence entries hold several ids in one string ("D8:6; D9:17"); one is only "D".
      const evidence = new Set(JSON.stringify(qa.evidence ?? []).match(/D\d+:\d+/g) ?? []);
      const type = `${qa.category} ${LOCOMO_CATEGORIES[qa.category] ?? 'other'}`;
      if (evidence.size > 0) questions.push({ conversation: sample.sample_id, type, question: qa.question, evidence });
    }
    return { name: sample.sample_id, sessions, questions };
  });
}

/** BEAM's conversations in the folder, each read when its turn comes. */
function beamConversations(dir: string): Array<{ name: string; read: () => { sessions: SessionInput[]; questions: Question[] } }> {
  const names = readdirSync(dir)
    .filter((name) => questionsFile(path.join(dir, name)) !== undefined)
    .sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
  if (names.length === 0) throw new Error(`${dir}: no conversations (folders with probing_questions.json) in it`);
  return names.map((name) => ({ name, read: () => ({ sessions: sessionsOf(path.join(dir, name), name), questions: questionsOf(path.join(dir, name), name) }) }));
}

interface Outcome {
  type: string;
  at5: number;
  at10: number;
  anyHit: boolean;
  messagesPerResult: number;
  ms: number;
  /** CPU time of the process during the search (its threads', the embedding worker's and LanceDB's included). */
  cpuMs: number;
  /** Texts embedded during the search, the question's included, and the time those calls took. */
  embedded: number;
  embedMs: number;
}

function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

function summary(outcomes: Outcome[]) {
  const mean = (f: (o: Outcome) => number) => (outcomes.length === 0 ? 0 : outcomes.reduce((s, o) => s + f(o), 0) / outcomes.length);
  return {
    questions: outcomes.length,
    recallAt5: mean((o) => o.at5),
    recallAt10: mean((o) => o.at10),
    anyHitAt10: mean((o) => (o.anyHit ? 1 : 0)),
    messagesPerResult: mean((o) => o.messagesPerResult),
    searchP50Ms: percentile(
      outcomes.map((o) => o.ms),
      0.5,
    ),
    searchP95Ms: percentile(
      outcomes.map((o) => o.ms),
      0.95,
    ),
    searchCpuP50Ms: percentile(
      outcomes.map((o) => o.cpuMs),
      0.5,
    ),
    embeddedPerSearch: mean((o) => o.embedded),
    embedP95Ms: percentile(
      outcomes.map((o) => o.embedMs),
      0.95,
    ),
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6);

async function main(): Promise<void> {
  const conversations =
    values.set === 'locomo'
      ? locomoConversations(DATA).map((c) => ({ name: c.name, read: () => c }))
      : values.set === 'realtalk'
        ? realtalkConversations(DATA, { rolesOnly: values['roles-only']! }).map((c) => ({ name: c.name, read: () => c }))
        : beamConversations(DATA);
  const chosen = values.only ? conversations.slice(0, Number(values.only)) : conversations;
  const modelsDir = path.resolve(values.models);
  await ensureUseLiteEn(modelsDir);
  const worker = await WorkerEmbedder.start('use-lite-en', { modelsDir });
  // Counts what a search embeds (the question, and anything search embeds besides) and how long it waits for it.
  const spent = { texts: 0, ms: 0 };
  const embedder: Embedder = {
    model: worker.model,
    dim: worker.dim,
    maxTokens: worker.maxTokens,
    embed: async (texts: string[]) => {
      const t0 = performance.now();
      try {
        return await worker.embed(texts);
      } finally {
        spent.texts += texts.length;
        spent.ms += performance.now() - t0;
      }
    },
    close: () => worker.close(),
  };
  const keep = values.stores ? path.resolve(values.stores) : undefined;
  const root = keep ?? mkdtempSync(path.join(os.tmpdir(), 'sm-recall-'));
  mkdirSync(root, { recursive: true });
  const outcomes: Outcome[] = [];
  let saveMs = 0;
  const misses = values.misses ? path.resolve(values.misses) : undefined;
  if (misses) writeFileSync(misses, '');
  try {
    for (const conversation of chosen) {
      const name = conversation.name;
      const { sessions, questions } = conversation.read();
      const engine = await MemoryEngine.open({ dataDir: path.join(root, `conversation-${name}`), embedder });
      try {
        const started = performance.now();
        for (const session of sessions) await engine.save(session);
        const took = performance.now() - started;
        saveMs += took;
        // The questions are asked after the conversation: "last month" is before its last part.
        const times = sessions.flatMap((s) => s.messages.map((m) => Date.parse(m.timestamp ?? ''))).filter((t) => Number.isFinite(t));
        const askedAt = times.length > 0 ? Math.max(...times) : undefined;
        // Searches ahead of the measured ones, as a host that has served some: the first opens the
        // indexes, the second has the view hold the vectors of a store without a vector index
        // (heldVectors.ts), read beside it; the measured searches begin once they are held.
        await engine.search('warm up', { limit: LIMIT });
        await engine.search('warm up again', { limit: LIMIT });
        const chunks = await engine.store.countChunks();
        for (let i = 0; i < 250 && (await engine.store.searching(async (reads) => reads.heldVectors)) !== chunks; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        for (const q of questions) {
          Object.assign(spent, { texts: 0, ms: 0 });
          const t0 = performance.now();
          const cpu0 = process.cpuUsage();
          const hits = await engine.search(q.question, { limit: LIMIT, ...(askedAt ? { now: askedAt } : {}) });
          const ms = performance.now() - t0;
          const cpu = process.cpuUsage(cpu0);
          const found = (k: number) => new Set(hits.slice(0, k).flatMap((h) => h.msgIds));
          const share = (k: number) => {
            const ids = found(k);
            return [...q.evidence].filter((id) => ids.has(id)).length / q.evidence.size;
          };
          outcomes.push({
            type: q.type,
            at5: share(5),
            at10: share(10),
            anyHit: share(10) > 0,
            messagesPerResult: hits.length === 0 ? 0 : hits.reduce((s, h) => s + h.msgIds.length, 0) / hits.length,
            ms,
            cpuMs: (cpu.user + cpu.system) / 1000,
            embedded: spent.texts,
            embedMs: spent.ms,
          });
          if (misses && share(10) < 1) {
            const texts = new Map(sessions.flatMap((s) => s.messages.map((m) => [m.msgId, `${s.sessionId} ${m.role}: ${m.content}`] as const)));
            const entry = { conversation: name, type: q.type, question: q.question, at5: share(5), at10: share(10), evidence: [...q.evidence].map((id) => ({ id, found: found(10).has(id), text: texts.get(id) })), results: hits.map((h) => ({ msgIds: h.msgIds, score: h.score, text: h.text.slice(0, 300) })) };
            appendFileSync(misses, `${JSON.stringify(entry)}\n`);
          }
        }
        const mine = summary(outcomes.slice(outcomes.length - questions.length));
        log(`conversation ${name}: ${sessions.length} sessions, ${sessions.reduce((s, x) => s + x.messages.length, 0)} messages saved in ${(took / 1000).toFixed(1)} s; ${questions.length} questions, recall@5 ${pct(mine.recallAt5)}, recall@10 ${pct(mine.recallAt10)}`);
      } finally {
        await engine.close();
      }
    }
  } finally {
    await embedder.close();
    if (!keep) rmSync(root, { recursive: true, force: true });
  }

  const all = summary(outcomes);
  const types = [...new Set(outcomes.map((o) => o.type))].sort();
  const perType = Object.fromEntries(types.map((t) => [t, summary(outcomes.filter((o) => o.type === t))]));
  log('');
  log(`${{ beam: 'BEAM', locomo: 'LoCoMo', realtalk: 'REALTALK' }[values.set!]} ${path.basename(DATA)}: ${chosen.length} conversations, ${all.questions} questions with evidence, limit ${LIMIT}`);
  log(`recall@5 ${pct(all.recallAt5)}   recall@10 ${pct(all.recallAt10)}   any-hit@10 ${pct(all.anyHitAt10)}   messages/result ${all.messagesPerResult.toFixed(2)}   search p50 / p95 ${all.searchP50Ms.toFixed(0)} / ${all.searchP95Ms.toFixed(0)} ms (CPU p50 ${all.searchCpuP50Ms.toFixed(0)} ms)   saving ${(saveMs / 1000).toFixed(1)} s`);
  log(`embedded a search ${all.embeddedPerSearch.toFixed(1)} texts (the question's included), waited p95 ${all.embedP95Ms.toFixed(0)} ms`);
  log('');
  log(`${'type'.padEnd(26)} ${'n'.padStart(4)} ${'R@5'.padStart(6)} ${'R@10'.padStart(6)} ${'any@10'.padStart(6)} ${'msg/res'.padStart(7)}`);
  for (const t of types) {
    const s = perType[t]!;
    log(`${t.padEnd(26)} ${String(s.questions).padStart(4)} ${pct(s.recallAt5)} ${pct(s.recallAt10)} ${pct(s.anyHitAt10)} ${s.messagesPerResult.toFixed(2).padStart(7)}`);
  }
  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  const compact = (s: ReturnType<typeof summary>) => ({ questions: s.questions, recallAt5: round(s.recallAt5), recallAt10: round(s.recallAt10), anyHitAt10: round(s.anyHitAt10), messagesPerResult: round(s.messagesPerResult), searchP50Ms: Math.round(s.searchP50Ms), searchP95Ms: Math.round(s.searchP95Ms), searchCpuP50Ms: Math.round(s.searchCpuP50Ms), embeddedPerSearch: round(s.embeddedPerSearch), embedP95Ms: Math.round(s.embedP95Ms) });
  console.log(JSON.stringify({ benchmark: values.set, data: path.basename(DATA), conversations: chosen.length, limit: LIMIT, saveMs: Math.round(saveMs), ...compact(all), byType: Object.fromEntries(types.map((t) => [t, compact(perType[t]!)])) }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
