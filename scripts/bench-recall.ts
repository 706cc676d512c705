/**
 * `npm run bench:recall -- --data <folder> [--only N] [--stores <folder>] [--json]`
 *
 * Retrieval on BEAM (Tavakoli et al. 2025, "Beyond a Million Tokens: Benchmarking and Enhancing
 * Long-Term Memory in LLMs"), read from the folder given (its 100K split: `<n>/chat.json` or
 * `<n>/chat_trunecated.json`, `<n>/probing_questions.json`). Nothing of it is kept in this repository.
 *
 * Each conversation goes into its own store through the engine as the app saves it: each dated batch
 * is one session, its messages carry the batch's date, the user messages' ` ->-> b,t` bookkeeping tags
 * are stripped. Every question with evidence is searched as the app and the MCP tool search (the
 * engine's search, limit 10, asked at the time of the conversation's last part). Prints recall@5 and recall@10 (the share of a question's evidence
 * messages among the messages of the top 5/10 results, averaged over questions), any-hit@10 (questions
 * with at least one evidence message in the top 10), messages per result, search p95, the same per
 * question type, and one JSON line.
 *
 * `--only N` measures the first N conversations. `--stores <folder>` keeps the stores there and reuses
 * them on the next run (for changes to search alone); without it they go in a temporary folder.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { SessionInput } from '../shared/domain.js';
import { WorkerEmbedder } from '../electron/embedding/embedder.js';
import { ensureUseLiteEn } from '../electron/embedding/useLiteEn.js';
import { MemoryEngine } from '../electron/engine/engine.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    only: { type: 'string' },
    stores: { type: 'string' },
    limit: { type: 'string', default: '10' },
    json: { type: 'boolean', default: false },
    models: { type: 'string', default: path.resolve('.cache/models') },
  },
});
if (!values.data) {
  console.error('usage: npm run bench:recall -- --data <folder of BEAM conversations> [--only N] [--stores <folder>]');
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

function questionsOf(dir: string, name: string): Question[] {
  const file = path.join(dir, 'probing_questions.json');
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

interface Outcome {
  type: string;
  at5: number;
  at10: number;
  anyHit: boolean;
  messagesPerResult: number;
  ms: number;
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
    searchP95Ms: percentile(
      outcomes.map((o) => o.ms),
      0.95,
    ),
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6);

async function main(): Promise<void> {
  const conversations = readdirSync(DATA)
    .filter((name) => existsSync(path.join(DATA, name, 'probing_questions.json')))
    .sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
  if (conversations.length === 0) throw new Error(`${DATA}: no conversations (folders with probing_questions.json) in it`);
  const chosen = values.only ? conversations.slice(0, Number(values.only)) : conversations;
  const modelsDir = path.resolve(values.models);
  await ensureUseLiteEn(modelsDir);
  const embedder = await WorkerEmbedder.start('use-lite-en', { modelsDir });
  const keep = values.stores ? path.resolve(values.stores) : undefined;
  const root = keep ?? mkdtempSync(path.join(os.tmpdir(), 'sm-recall-'));
  mkdirSync(root, { recursive: true });
  const outcomes: Outcome[] = [];
  let saveMs = 0;
  try {
    for (const name of chosen) {
      const dir = path.join(DATA, name);
      const sessions = sessionsOf(dir, name);
      const questions = questionsOf(dir, name);
      const engine = await MemoryEngine.open({ dataDir: path.join(root, `conversation-${name}`), embedder });
      try {
        const started = performance.now();
        for (const session of sessions) await engine.save(session);
        const took = performance.now() - started;
        saveMs += took;
        // The questions are asked after the conversation: "last month" is before its last part.
        const times = sessions.flatMap((s) => s.messages.map((m) => Date.parse(m.timestamp ?? ''))).filter((t) => Number.isFinite(t));
        const askedAt = times.length > 0 ? Math.max(...times) : undefined;
        // One search ahead of the measured ones (the first opens the indexes).
        await engine.search('warm up', { limit: LIMIT });
        for (const q of questions) {
          const t0 = performance.now();
          const hits = await engine.search(q.question, { limit: LIMIT, ...(askedAt ? { now: askedAt } : {}) });
          const ms = performance.now() - t0;
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
          });
        }
        const mine = summary(outcomes.slice(outcomes.length - questions.length));
        log(`conversation ${name}: ${sessions.length} sessions, ${sessions.reduce((s, x) => s + x.messages.length, 0)} messages saved in ${(took / 1000).toFixed(1)} s; ${questions.length} questions, recall@10 ${pct(mine.recallAt10)}`);
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
  log(`BEAM ${path.basename(DATA)}: ${chosen.length} conversations, ${all.questions} questions with evidence, limit ${LIMIT}`);
  log(`recall@5 ${pct(all.recallAt5)}   recall@10 ${pct(all.recallAt10)}   any-hit@10 ${pct(all.anyHitAt10)}   messages/result ${all.messagesPerResult.toFixed(2)}   search p95 ${all.searchP95Ms.toFixed(0)} ms   saving ${(saveMs / 1000).toFixed(1)} s`);
  log('');
  log(`${'type'.padEnd(26)} ${'n'.padStart(4)} ${'R@5'.padStart(6)} ${'R@10'.padStart(6)} ${'any@10'.padStart(6)} ${'msg/res'.padStart(7)}`);
  for (const t of types) {
    const s = perType[t]!;
    log(`${t.padEnd(26)} ${String(s.questions).padStart(4)} ${pct(s.recallAt5)} ${pct(s.recallAt10)} ${pct(s.anyHitAt10)} ${s.messagesPerResult.toFixed(2).padStart(7)}`);
  }
  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  const compact = (s: ReturnType<typeof summary>) => ({ questions: s.questions, recallAt5: round(s.recallAt5), recallAt10: round(s.recallAt10), anyHitAt10: round(s.anyHitAt10), messagesPerResult: round(s.messagesPerResult), searchP95Ms: Math.round(s.searchP95Ms) });
  console.log(JSON.stringify({ benchmark: 'beam', data: path.basename(DATA), conversations: chosen.length, limit: LIMIT, saveMs: Math.round(saveMs), ...compact(all), byType: Object.fromEntries(types.map((t) => [t, compact(perType[t]!)])) }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
