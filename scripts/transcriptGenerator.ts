/**
 * Realistic synthetic conversations for benchmarks and load tests: users ask short questions,
 * assistants answer at length (sometimes with code), topics drift every few turns. Seeded, so every
 * run measures the same text.
 */
import type { MessageInput, SessionInput } from '../shared/domain.js';

export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    // xorshift32
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}

const TOPICS: Record<string, string[]> = {
  gardening: ['tomato seedlings', 'compost heap', 'drip irrigation', 'clay soil', 'aphids on the roses', 'raised beds', 'mulch', 'pruning the apple tree'],
  databases: ['the query planner', 'a composite index', 'write amplification', 'vacuum and compaction', 'the replication lag', 'connection pooling', 'a slow join', 'the schema migration'],
  travel: ['the night train to Vienna', 'a hotel near the old town', 'travel insurance', 'the museum pass', 'carry-on luggage rules', 'a rental car', 'the ferry timetable', 'jet lag'],
  cooking: ['a mushroom risotto', 'sourdough starter', 'braising short ribs', 'a vegetable stock', 'knife skills', 'tempering chocolate', 'a weeknight curry', 'fermenting cabbage'],
  fitness: ['a marathon training plan', 'interval runs', 'knee pain after squats', 'protein intake', 'rest days', 'a heart-rate zone', 'stretching routines', 'running shoes'],
  finance: ['an emergency fund', 'index funds', 'the mortgage rate', 'a monthly budget', 'credit card debt', 'retirement accounts', 'tax deductions', 'inflation'],
  programming: ['a memory leak in the worker', 'TypeScript generics', 'a flaky integration test', 'the build cache', 'error handling in async code', 'a race condition', 'code review comments', 'the release pipeline'],
  writing: ['the opening chapter', 'a character arc', 'dialogue that sounds natural', 'the editor\'s notes', 'a query letter', 'pacing in the middle act', 'point of view', 'a short story contest'],
};

const QUESTION_FORMS = [
  'How should I handle {t} when {u} is also changing?',
  'Can you explain {t} in simple terms?',
  'What is the most common mistake people make with {t}?',
  'I tried {t} last week and it did not work. What did I miss?',
  'Is {t} worth the effort compared with {u}?',
  'Give me a short checklist for {t}.',
  'Why does {t} behave differently from {u}?',
  'What would you do first about {t}?',
];

const ANSWER_SENTENCES = [
  'Start by looking at {t} on its own, before you change anything else.',
  'The usual problem with {t} is that small changes add up over several weeks.',
  'Compared with {u}, {t} needs more patience but less money.',
  'Write down what you observe each day, because memory is unreliable here.',
  'If {t} still misbehaves after that, the cause is probably {u}.',
  'Most people skip this step, and it is the one that matters most.',
  'A good rule of thumb is to change one variable at a time and wait.',
  'There are three parts to this: preparation, the change itself, and checking the result.',
  'Do not worry if the first attempt fails; {t} rarely works the first time.',
  'Experts disagree on the details of {t}, but they agree on the basics.',
  'Keep an eye on {u}, since it tends to interfere with {t}.',
  'In practice, a simple approach to {t} beats a clever one.',
  'Once this is stable, revisit {t} after a month and compare notes.',
  'The numbers only make sense when you measure them the same way every time.',
];

const CODE = ['```ts\nconst result = await run(task, { retries: 3 });\nif (!result.ok) throw new Error(result.reason);\n```', '```sql\nSELECT id, count(*) FROM events GROUP BY id ORDER BY 2 DESC LIMIT 10;\n```'];

function fill(template: string, t: string, u: string): string {
  return template.replaceAll('{t}', t).replaceAll('{u}', u);
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** A conversation of `count` messages, alternating user and assistant. */
export function realisticConversation(sessionId: string, count: number, seed = 1): SessionInput {
  const random = seededRandom(seed);
  const topicNames = Object.keys(TOPICS);
  let topic = TOPICS[pick(random, topicNames)]!;
  let turnsLeft = 0;
  const messages: MessageInput[] = [];
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < count; i++) {
    if (i % 2 === 0 && turnsLeft-- <= 0) {
      topic = TOPICS[pick(random, topicNames)]!;
      turnsLeft = 3 + Math.floor(random() * 10);
    }
    const t = pick(random, topic);
    const u = pick(random, topic);
    let content: string;
    if (i % 2 === 0) {
      content = fill(pick(random, QUESTION_FORMS), t, u);
      if (random() < 0.4) content += ` ${fill(pick(random, ANSWER_SENTENCES), u, t)}`;
    } else {
      const sentences = 2 + Math.floor(random() * random() * 14);
      const parts: string[] = [];
      for (let k = 0; k < sentences; k++) parts.push(fill(pick(random, ANSWER_SENTENCES), pick(random, topic), pick(random, topic)));
      if (random() < 0.08) parts.splice(1, 0, `\n${pick(random, CODE)}\n`);
      content = parts.join(' ');
    }
    messages.push({ msgId: `${sessionId}-m${i}`, role: i % 2 === 0 ? 'user' : 'assistant', content, timestamp: new Date(start + i * 45_000).toISOString() });
  }
  return { sessionId, title: `Conversation ${sessionId}`, source: 'json', messages };
}
