/** How search orders its candidates: by message, the asker's standing wishes for a request (and the rules stated for a question that is none), the time a question names, the passage a question quotes. */
import { beforeAll, describe, expect, it } from 'vitest';
import { byMessage, speakersAmong } from '../electron/engine/search/search.js';
import { byDistinctText, fuseByRank } from '../electron/engine/search/rankFusion.js';
import { namesIn, topicOf, withoutNames } from '../electron/engine/search/questionTopic.js';
import { passageWords, quotedFirst, quoteReader } from '../electron/engine/search/quotedPassage.js';
import { asksForHelp, conditionFit, conditionsOf, holdsUserWish, rankWishes, rulesStatedFor, statesWish } from '../electron/engine/search/standingWishes.js';
import { favourSaidTimes, favourSpan, loadTimeReading, timeSpanOf } from '../electron/engine/search/timeInQuestion.js';
import { languageOf } from '../electron/engine/search/textLanguage.js';
import { favourQuestionWords, stemmedWords } from '../electron/engine/search/questionWords.js';
import { favourNeighbours, NEIGHBOUR_SOURCES, NEIGHBOUR_WEIGHT, SHORT_SOURCE_CHARS } from '../electron/engine/search/neighbourTurns.js';
import type { VectorHit } from '../electron/engine/store/storeRows.js';
import { withPrompts, type Prompt } from '../electron/engine/search/searchPrompts.js';

// A search loads chrono-node before it reads its question (searchChunks); these tests call the readers themselves.
beforeAll(() => loadTimeReading());

const entry = (chunkId: string, msgIds: string[], score: number, sessionId = 's') => ({ hit: { chunkId, sessionId, msgIds }, score });

describe('byMessage', () => {
  it('puts a message several of whose parts match ahead of one that matches by a single slightly better part', () => {
    const ranked = byMessage([entry('a0', ['a'], 0.1), entry('b0', ['b'], 0.09), entry('b1', ['b'], 0.06), entry('b2', ['b'], 0.05)]);
    expect(ranked.map((r) => r.hit.chunkId)).toEqual(['b0', 'a0', 'b1', 'b2']);
  });

  it('leaves the order alone when every message matches by one part', () => {
    const ranked = byMessage([entry('a0', ['a'], 0.1), entry('b0', ['b'], 0.09), entry('c0', ['c'], 0.08)]);
    expect(ranked.map((r) => [r.hit.chunkId, r.score])).toEqual([
      ['a0', 0.1],
      ['b0', 0.09],
      ['c0', 0.08],
    ]);
  });

  it('does not count a copy of the message in another session as another part of it', () => {
    const ranked = byMessage([entry('a0', ['a'], 0.1, 'one'), entry('b0', ['b'], 0.09, 'one'), entry('b0-copy', ['b'], 0.09, 'two'), entry('b0-copy2', ['b'], 0.09, 'three')]);
    expect(ranked.map((r) => [r.hit.chunkId, r.score])).toEqual([
      ['a0', 0.1],
      ['b0', 0.09],
      ['b0-copy', 0.09],
      ['b0-copy2', 0.09],
    ]);
  });
});

describe('byMessage and turns', () => {
  const said = (chunkId: string, msgId: string, seq: number, text: string, score: number, sessionId = 's') => ({ hit: { chunkId, sessionId, msgIds: [msgId], seq, text }, score });

  it('puts a turn whose request and reply both match ahead of a message that matches a little better alone', () => {
    const ranked = byMessage([said('other', 'x', 9, 'assistant: Redis it is.', 0.1), said('reply', 'r', 5, 'assistant: Use a token bucket.', 0.09), said('ask', 'q', 4, 'user: How do I rate-limit?', 0.05)]);
    expect(ranked.map((r) => r.hit.chunkId)).toEqual(['reply', 'other', 'ask']);
    expect(ranked[0]!.score).toBeCloseTo(0.09 + 0.3 * 0.05, 10);
  });

  it('joins no messages of other turns, other sessions, or lines that name their speakers', () => {
    const ranked = byMessage([
      said('other', 'x', 9, 'assistant: Redis it is.', 0.1),
      // The reply at 5 answers the request at 4, not the one at 2 nor the one at 4 of another session.
      said('reply', 'r', 5, 'assistant: Use a token bucket.', 0.09),
      said('earlier', 'p', 2, 'user: Which cache?', 0.05),
      said('elsewhere', 'q', 4, 'user: How do I rate-limit?', 0.05, 't'),
      // In a chat between people either may speak twice in a row: no turns.
      said('melanie', 'm', 8, 'Melanie: I painted a lake.', 0.04),
      said('caroline', 'c', 7, 'Caroline: What did you paint?', 0.03),
    ]);
    expect(ranked.map((r) => [r.hit.chunkId, r.score])).toEqual([
      ['other', 0.1],
      ['reply', 0.09],
      ['earlier', 0.05],
      ['elsewhere', 0.05],
      ['melanie', 0.04],
      ['caroline', 0.03],
    ]);
  });
});

describe('the other half of a turn', () => {
  const result = (chunkId: string, msgIds: string[], text: string, sessionId = 's') => ({ hit: { chunkId, sessionId, msgIds, text } });

  it('joins each result to the other half of its turn, but does not show a message a better result already shows', () => {
    // Two parts of one long reply, both answering the request "ask"; a user message found alone gets the start of its reply.
    const results = [result('part1', ['reply'], 'assistant: Use a token bucket.'), result('part2', ['reply'], 'assistant: Then back off exponentially.'), result('alone', ['later'], 'user: And for bursts?')];
    const prompts = new Map<string, Prompt>([
      ['part1', { msgId: 'ask', content: 'How do I rate-limit?' }],
      ['part2', { msgId: 'ask', content: 'How do I rate-limit?' }],
      ['alone', { msgId: 'answer', content: 'Queue them.', after: true }],
    ]);
    const joined = withPrompts(results, prompts);
    expect(joined.map((r) => r.hit.msgIds)).toEqual([['ask', 'reply'], ['reply'], ['later', 'answer']]);
    expect(joined[0]!.hit.text).toBe('user: How do I rate-limit?\nassistant: Use a token bucket.');
    expect(joined[1]!.hit.text).toBe('assistant: Then back off exponentially.');
    expect(joined[2]!.hit.text).toBe('user: And for bursts?\nassistant: Queue them.');
  });

  it('still shows a message of the same id from another session', () => {
    const results = [result('a', ['reply'], 'assistant: One.', 'one'), result('b', ['reply'], 'assistant: Two.', 'two')];
    const prompts = new Map<string, Prompt>([
      ['a', { msgId: 'ask', content: 'Q?' }],
      ['b', { msgId: 'ask', content: 'Q?' }],
    ]);
    expect(withPrompts(results, prompts).map((r) => r.hit.msgIds)).toEqual([['ask', 'reply'], ['ask', 'reply']]);
  });
});

describe('byMessage and repeated parts', () => {
  it('counts a part that repeats another part of the message word for word once', () => {
    const part = (chunkId: string, textHash: string, score: number) => ({ hit: { chunkId, sessionId: 's', msgIds: ['b'], textHash }, score });
    const ranked = byMessage([{ hit: { chunkId: 'a0', sessionId: 's', msgIds: ['a'], textHash: 'A' }, score: 0.1 }, part('b0', 'B0', 0.09), part('b1', 'B1', 0.02), part('b1-again', 'B1', 0.02), part('b1-again2', 'B1', 0.02)]);
    expect(ranked[0]!.hit.chunkId).toBe('a0');
    expect(ranked.find((r) => r.hit.chunkId === 'b0')!.score).toBeCloseTo(0.09 + 0.3 * 0.02, 10);
  });
});

describe('fusion by distinct text', () => {
  const hit = (chunkId: string, textHash: string) => ({ chunkId, textHash });

  it('gives copies of a text the rank of its first place and counts the depth in distinct texts', () => {
    const list = [hit('x1', 'X'), hit('x2', 'X'), hit('x3', 'X'), hit('y', 'Y'), hit('x4', 'X'), hit('z', 'Z'), hit('w', 'W')];
    const { hits, ranks } = byDistinctText(list, 2);
    expect(hits.map((h) => h.chunkId)).toEqual(['x1', 'x2', 'x3', 'y', 'x4']);
    expect(ranks).toEqual([0, 0, 0, 1, 0]);
  });

  it('ranks the other texts as in a store that holds the copied text once', () => {
    const once = { vector: [hit('x1', 'X'), hit('y', 'Y'), hit('z', 'Z')], text: [hit('z', 'Z'), hit('x1', 'X'), hit('y', 'Y')] };
    const copies = ['x2', 'x3', 'x4', 'x5'].map((id) => hit(id, 'X'));
    const many = { vector: [hit('x1', 'X'), ...copies, hit('y', 'Y'), hit('z', 'Z')], text: [hit('z', 'Z'), hit('x1', 'X'), ...copies, hit('y', 'Y')] };
    const fuse = (lists: typeof once) => {
      const [v, t] = [byDistinctText(lists.vector, 3), byDistinctText(lists.text, 3)];
      return fuseByRank([v.hits, t.hits], 10, [], [v.ranks, t.ranks]);
    };
    const scoreOf = (fused: ReturnType<typeof fuse>) => new Map(fused.map((f) => [f.hit.chunkId, f.score]));
    const [a, b] = [scoreOf(fuse(once)), scoreOf(fuse(many))];
    for (const id of ['x1', 'y', 'z']) expect(b.get(id)).toBe(a.get(id));
    // Each copy scores as the text's first place does (they are folded into it later).
    for (const { chunkId } of copies) expect(b.get(chunkId)).toBe(a.get('x1'));
    // By place in the list, the copies would push the other texts down.
    const byPlace = new Map(fuseByRank([many.vector, many.text], 10).map((f) => [f.hit.chunkId, f.score]));
    expect(byPlace.get('y')).toBeLessThan(a.get('y')!);
  });
});

describe('standing wishes', () => {
  it('tells a request for help from a question about what happened', () => {
    expect(asksForHelp('Could you show me how to implement a login feature?')).toBe(true);
    expect(asksForHelp('What snacks do you recommend for me to try?')).toBe(true);
    expect(asksForHelp('How many commits did I merge last week?')).toBe(false);
    expect(asksForHelp('When is the final submission due?')).toBe(false);
    expect(asksForHelp('Can you summarize what we discussed about the budget?')).toBe(false);
  });

  it("brings no wishes to a question about someone else (people chatting: another's wishes are not the asker's)", () => {
    expect(asksForHelp("What is Caroline's favourite book?")).toBe(false);
    expect(asksForHelp('What kind of pottery does Melanie make?')).toBe(false);
    expect(asksForHelp('What should I read next about pottery?')).toBe(true);
  });

  it('counts a wish only in the words of a user message', () => {
    expect(holdsUserWish('user: Always use APA style when I ask about references.')).toBe(true);
    expect(holdsUserWish('user: Here is my draft.\nI prefer short paragraphs.\nassistant: Noted.')).toBe(true);
    expect(holdsUserWish('assistant: You should always validate the input.')).toBe(false);
    expect(holdsUserWish('user: Thanks!\nassistant: Never store passwords in plain text.')).toBe(false);
  });

  it('ranks the wishes by their words and their meaning together, a few at most', () => {
    const unit = (i: number) => Float32Array.from([i === 0 ? 1 : 0, i === 1 ? 1 : 0, i === 2 ? 1 : 0]);
    const hit = (chunkId: string, text: string, vector: Float32Array): VectorHit => ({ chunkId, sessionId: 's', text, textHash: chunkId, msgIds: [chunkId], distance: 0, vector });
    const question = Float32Array.from([0, 0.9, 0.1]);
    const candidates = [
      hit('advice', 'assistant: Always back up first.', unit(1)),
      hit('w1', 'user: Always answer in French.', unit(0)),
      hit('w2', 'user: I prefer bullet points.', unit(1)),
      hit('w3', 'user: Never use tables.', unit(2)),
      hit('w4', 'user: Always cite sources.', unit(0)),
    ];
    // w2 is second by words but first by meaning; the assistant's advice is no wish.
    expect(rankWishes(candidates, question, 10).map((h) => h.chunkId)).toEqual(['w2', 'w1', 'w3', 'w4']);
  });

  it('puts the rules and preferences a person stated before messages that only hold a wish word, and counts copies once', () => {
    const hit = (chunkId: string, text: string, vector: Float32Array, textHash = chunkId): VectorHit => ({ chunkId, sessionId: chunkId, text, textHash, msgIds: [chunkId], distance: 0, vector });
    const question = Float32Array.from([1, 0, 0]); // "How should I cache the sessions?"
    const near = Float32Array.from([0.9, 0.1, 0]);
    const far = Float32Array.from([0.2, 0.9, 0.1]);
    const candidates = [
      // Best by words and by meaning, yet only mentions: what happened, not what is wanted.
      hit('never-done', "user: I've never cached the sessions in Redis before, so this is new to me.", near),
      hit('it-always', 'user: The session cache always misses after a deploy.', near),
      hit('rule', 'user: Always explain the trade-offs when I ask about caching.', far, 'rule-text'),
      hit('rule-copy', 'user: Always explain the trade-offs when I ask about caching.', far, 'rule-text'),
      hit('preference', "assistant: Noted.\nuser: I'd prefer answers with a short example first.", far),
      hit('please', 'user: Please never use global state in examples.', far),
      hit('should', 'user: Thanks.\nYou should always say which version a library needs.', far),
    ];
    expect(statesWish("user: I've never cached the sessions in Redis before.")).toBe(false);
    expect(statesWish('user: Make sure to always run the tests first.')).toBe(true);
    expect(statesWish('assistant: Always back up first.')).toBe(false);
    expect(statesWish('user: I really prefer tabs.\nuser: I\u2019d prefer tabs.')).toBe(true);
    expect(rankWishes(candidates, question, 10).map((h) => h.chunkId)).toEqual(['rule', 'preference', 'please', 'should']);
  });
});

describe('what a wish is stated for', () => {
  it('reads the topic a rule is stated for, in the words of a user message', () => {
    expect(conditionsOf('user: Always format dates as "Month Day, Year" when I ask about timeline details.')).toEqual(['timeline details']);
    expect(conditionsOf('user: When I ask for code examples, always use TypeScript.')).toEqual(['code examples']);
    expect(conditionsOf("user: Please never use jargon if I'm asking about taxes; keep it plain.")).toEqual(['taxes']);
    expect(conditionsOf('user: Always cite sources whenever we discuss research papers.')).toEqual(['research papers']);
    expect(conditionsOf('assistant: Always test when you ask about it.\nuser: Always answer in French.')).toEqual([]);
  });

  it('scores a wish by the share of its topic the question names', () => {
    const asked = (question: string) => new Set(stemmedWords(question));
    expect(conditionFit('user: Always highlight changes in budget allocations when I ask about financial goals.', asked('What are my current financial goals for this year?'))).toBe(1);
    expect(conditionFit('user: Always provide detailed genre descriptions when I ask about book recommendations.', asked('What are some good books I should check out?'))).toBe(0.5);
    expect(conditionFit('user: Always include platform details when I ask about movie options.', asked('What are my financial goals?'))).toBe(0);
    expect(conditionFit('user: I prefer Excel for budgets.', asked('How do I plan my budget?'))).toBe(0);
  });

  it('puts the rule stated for what the question asks about before wishes nearer it in meaning', () => {
    const hit = (chunkId: string, text: string, vector: Float32Array): VectorHit => ({ chunkId, sessionId: 's', text, textHash: chunkId, msgIds: [chunkId], distance: 0, vector });
    const question = Float32Array.from([1, 0, 0]);
    const near = Float32Array.from([0.9, 0.1, 0]);
    const far = Float32Array.from([0.1, 0.9, 0]);
    const candidates = [
      hit('excel', "user: I'm stressed about our budget, and I prefer Excel for control.", near),
      hit('cable', 'user: I prefer cutting recurring expenses, like the cable TV.', near),
      hit('movies', 'user: Always include platform details when I ask about movie options.', near),
      hit('goals', 'user: Always highlight changes in budget allocations when I ask about financial goals.', far),
      hit('mention', "user: I've never had financial goals before.", near),
    ];
    const topic = 'What are my current financial goals for this year?';
    expect(rankWishes(candidates, question, 10, topic).map((h) => h.chunkId)).toEqual(['goals', 'excel', 'cable', 'movies']);
    // Without the question's words, by words and meaning alone: the rule comes last of the wishes proper.
    expect(rankWishes(candidates, question, 10).map((h) => h.chunkId)).toEqual(['excel', 'cable', 'movies', 'goals']);
  });
});

describe('the rules stated for a question that is no request', () => {
  const hit = (chunkId: string, text: string, textHash = chunkId): VectorHit => ({ chunkId, sessionId: 's', text, textHash, msgIds: [chunkId], distance: 0 });
  const candidates = [
    hit('mention', "user: I've never been to a writers' festival before, so I'm nervous about the holiday."),
    hit('dates', 'user: Always format dates as "Month Day, Year" when I ask about timeline details.'),
    hit('dates-copy', 'user: Always format dates as "Month Day, Year" when I ask about timeline details.', 'dates'),
    hit('budget', 'user: Always confirm budget caps when I ask about holiday spending.'),
    hit('unconditional', 'user: Always format dates in ISO style.'),
    hit('advice', 'assistant: Always book the festival tickets early when you plan a holiday.'),
    hit('code', 'user: Always use type hints when I ask for code examples.'),
    hit('transfers', 'user: Always list the fees when I ask about international bank transfers.'),
  ];

  it('brings the rule a question holds most of the condition of, and for a question that asks when, a rule about how to give dates', () => {
    expect(asksForHelp('How much am I allowed to spend on my holiday plans?')).toBe(false);
    expect(rulesStatedFor(candidates, 'How much am I allowed to spend on my holiday plans?').map((h) => h.chunkId)).toEqual(['budget']);
    expect(asksForHelp("When was the Montserrat Writers' Festival?")).toBe(false);
    // The rule once, though saved twice; the one stated for no question and the assistant's advice are none.
    expect(rulesStatedFor(candidates, "When was the Montserrat Writers' Festival?").map((h) => h.chunkId)).toEqual(['dates']);
    expect(rulesStatedFor(candidates, 'What date is the holiday spending review?').map((h) => h.chunkId)).toEqual(['budget', 'dates']);
  });

  it('brings none to a question that names a condition in passing, or asks of the record without asking when', () => {
    // "bank" is a third of "international bank transfers": the question must hold at least half.
    expect(rulesStatedFor(candidates, 'Which bank did I open my savings account with?')).toEqual([]);
    expect(rulesStatedFor(candidates, 'Which international bank transfers did I make?').map((h) => h.chunkId)).toEqual(['transfers']);
    expect(rulesStatedFor(candidates, 'How many festivals did I mention?')).toEqual([]);
    expect(rulesStatedFor(candidates, 'Did the review mention the quality or the layout?')).toEqual([]);
    expect(rulesStatedFor(candidates, '节日是什么时候？')).toEqual([]);
  });
});

describe('the time a question names', () => {
  const now = new Date('2024-06-20T12:00:00Z');
  const span = (question: string) => {
    const s = timeSpanOf(question, now);
    return s && [new Date(s.from).toISOString().slice(0, 10), new Date(s.to).toISOString().slice(0, 10)];
  };

  it('reads months, days, ranges and relative times as spans of days', () => {
    expect(span('Summarize my progress between April and May 2024')).toEqual(['2024-04-01', '2024-05-31']);
    expect(span('What did I decide from July through September 2024?')).toEqual(['2024-07-01', '2024-09-30']);
    expect(span('What did I eat on March 15?')).toEqual(['2024-03-15', '2024-03-15']);
    expect(span('What did we talk about last week?')).toEqual(['2024-06-10', '2024-06-16']);
    expect(span('What did I say yesterday?')).toEqual(['2024-06-19', '2024-06-19']);
  });

  it('favours what was said within the span or in the days after it, when people tell of what they did', async () => {
    const said: Record<string, string> = { before: '2024-05-30T12:00:00Z', during: '2024-06-12T12:00:00Z', toldAfter: '2024-07-03T12:00:00Z', weeksAfter: '2024-07-20T12:00:00Z' };
    const candidate = (id: string, score: number) => ({ hit: { chunkId: id, sessionId: 's', text: id, msgIds: [id], seq: score }, score });
    const fused = [candidate('weeksAfter', 0.9), candidate('before', 0.8), candidate('toldAfter', 0.6), candidate('during', 0.5)];
    const reads = { messagesAround: async (places: ReadonlyArray<{ firstMsgId: string }>) => places.map((p) => ({ first: { timestamp: said[p.firstMsgId] } }) as never) };
    const june = timeSpanOf('When did Melanie go camping in June?', now)!;
    const order = await favourSpan(reads, fused, june, 10);
    expect(order.map((f) => f.hit.chunkId)).toEqual(['toldAfter', 'during', 'weeksAfter', 'before']);
  });

  it('favours what tells of a time within the span, read from when it was said', async () => {
    // Said on July 20, weeks after June: "last month" is June, "last week" is July.
    const candidate = (id: string, text: string, score: number) => ({ hit: { chunkId: id, sessionId: 's', text, msgIds: [id], seq: score }, score });
    const fused = [
      candidate('lastWeek', 'user: We went to a concert with my colleagues last week.', 0.9),
      candidate('plain', 'user: We went to a concert with my colleagues, it was loud.', 0.8),
      candidate('lastMonth', 'user: My colleagues and I went to a convention last month.', 0.5),
    ];
    const reads = { messagesAround: async (places: ReadonlyArray<{ firstMsgId: string }>) => places.map(() => ({ first: { timestamp: '2024-07-20T12:00:00Z' } }) as never) };
    const june = timeSpanOf('What did I attend with my colleagues in June?', now)!;
    expect((await favourSpan(reads, fused, june, 10)).map((f) => f.hit.chunkId)).toEqual(['lastMonth', 'lastWeek', 'plain']);
  });

  it('favours what says a time for a question that asks when, and only then', () => {
    const candidate = (id: string, text: string, score: number) => ({ hit: { text }, score, id });
    const fused = [candidate('plain', 'The support group was so powerful, I felt accepted.', 1), candidate('dated', 'I went to a support group yesterday.', 0.8)];
    expect(favourSaidTimes('When did Caroline go to the support group?', fused, 10).map((f) => f.id)).toEqual(['dated', 'plain']);
    expect(favourSaidTimes('What did Caroline feel at the support group?', fused, 10).map((f) => f.id)).toEqual(['plain', 'dated']);
  });

  it('puts a month named without its year in the past, and names no span for habits or none at all', () => {
    expect(span('What did I plan in December?')).toEqual(['2023-12-01', '2023-12-31']);
    expect(span('Do I stop answering email after 7 PM on Tuesdays?')).toBeNull();
    expect(span('Which hosting did we pick?')).toBeNull();
  });
});

describe('what a question is about', () => {
  it('leaves out the words that refer to the conversations themselves', () => {
    expect(topicOf('How many security features am I trying to implement across my sessions?')).toBe('How many security features am I trying to implement?');
    expect(topicOf('What did you recommend in our previous chat for the gallery images?')).toBe('What did you recommend for the gallery images?');
    expect(topicOf('Summarize how the budget app changed throughout our conversations, with dates.')).toBe('Summarize how the budget app changed, with dates.');
  });

  it('keeps a question whose topic is the sessions themselves', () => {
    expect(topicOf('How long were the sessions with the physio?')).toBe('How long were the sessions with the physio?');
    expect(topicOf('In our sessions')).toBe('In our sessions');
  });
});

describe('the passage a question quotes', () => {
  const candidate = (id: string, text: string, score: number) => ({ hit: { chunkId: id, text }, score });

  it('puts the passage quoted word for word before one that differs in a number, and keeps scores falling', () => {
    const ranked = [
      candidate('t19', 'user: Which LanceDB index should I use for a million vectors? (turn 19)', 0.9),
      candidate('other', 'user: How long does building an index take?', 0.8),
      candidate('t5', 'user: Is a full-text index worth it?\nassistant: Yes.\nuser: Which LanceDB index should I use for a million vectors? (turn 5)', 0.7),
    ];
    const order = quotedFirst('Which LanceDB index should I use for a million vectors? (turn 5)', ranked);
    expect(order.map((c) => c.hit.chunkId)).toEqual(['t5', 't19', 'other']);
    expect(order.map((c) => c.score)).toEqual([0.9, 0.9, 0.8]);
  });

  it('reads a quote of most of a sentence, and a slip of one word in it, but not a common opening', () => {
    const reader = quoteReader('Marco rotates the API keys of the billing service on Monday')!;
    expect(reader.shareOf('Change of plan: Marco rotates the API keys of the billing service on Monday, and Priya updates the page.')).toBe(1);
    expect(reader.shareOf('Priya rotates the API keys of the billing service on Monday.')).toBeCloseTo(10 / 11, 10);
    expect(reader.shareOf('Marco rotates the API tokens of the billing service on Monday.')).toBeCloseTo(10 / 11, 10);
    expect(reader.shareOf('The billing service keys: Marco on Monday rotates them.')).toBeLessThan(0.5);
    const question = quoteReader('What did I say about Rust?')!;
    expect(question.shareOf('user: What did I say about the deadline?')).toBeLessThan(0.85);
    expect(quotedFirst('What did I say about Rust?', [candidate('rust', 'Rust lifetimes tie a borrow to its owner.', 0.9), candidate('deadline', 'user: What did I say about the deadline?', 0.5)]).map((c) => c.hit.chunkId)).toEqual(['rust', 'deadline']);
  });

  it('reads no quote in a question of a few words, whatever it matches', () => {
    expect(quoteReader('LanceDB index turn 5')).toBeNull();
    const ranked = [candidate('a', 'LanceDB index turn 5', 0.4), candidate('b', 'something else', 0.9)];
    expect(quotedFirst('LanceDB index', ranked)).toEqual(ranked);
  });

  it('reads words in any script: a character at a time where words have no spaces, case and accents aside', () => {
    expect(passageWords('以后回答请用中文, Café OK')).toEqual(['以', '后', '回', '答', '请', '用', '中', '文', 'cafe', 'ok']);
    const reader = quoteReader('请记住我不吃香菜')!;
    expect(reader.shareOf('user: 请记住我不吃香菜，谢谢。')).toBe(1);
    expect(reader.shareOf('user: 请记住我不吃辣椒。')).toBeLessThan(0.85);
    expect(quoteReader('Ça coûte combien à Montréal')!.shareOf('ca coute COMBIEN a montreal?')).toBe(1);
  });
});

describe('rules that read words, in the language of the text', () => {
  const now = new Date('2024-06-20T12:00:00Z');
  const span = (question: string) => {
    const s = timeSpanOf(question, now);
    return s && [new Date(s.from).toISOString().slice(0, 10), new Date(s.to).toISOString().slice(0, 10)];
  };

  it('tells the language of a text by the script of most of its words', () => {
    expect(languageOf('How do I deploy the recipe app?')).toBe('latin');
    expect(languageOf('¿Qué me dijiste el 5 de mayo?')).toBe('latin');
    expect(languageOf('以后回答请用中文')).toBe('zh');
    expect(languageOf('他的代码注释里写着 never store passwords，这句话怎么翻译？')).toBe('zh');
    expect(languageOf('3月に何を注文しましたか')).toBe('ja');
    expect(languageOf('데이터베이스를 백업하는 방법')).toBe('ko');
    expect(languageOf('Что я заказал в марте?')).toBe('ru');
    expect(languageOf('Що я замовив у березні?')).toBe('uk');
    expect(languageOf('2024-03-05 12:00')).toBe('none');
  });

  it('reads the time a Chinese, Japanese or Russian question names with the parser of its language', () => {
    expect(span('我三月在罗莎餐厅点了什么？')).toEqual(['2024-03-01', '2024-03-31']);
    expect(span('我在2024年3月15日说了什么？')).toEqual(['2024-03-15', '2024-03-15']);
    expect(span('2024年4月到5月我做了什么？')).toEqual(['2024-04-01', '2024-05-31']);
    expect(span('昨天我说了什么？')).toEqual(['2024-06-19', '2024-06-19']);
    expect(span('昨日何と言いましたか')).toEqual(['2024-06-19', '2024-06-19']);
    expect(span('Что я заказал в марте?')).toEqual(['2024-03-01', '2024-03-31']);
  });

  it('does not read a Chinese question for English dates, nor for requests or words about the conversations', () => {
    expect(span('我在 10/12 提交的报告里写了什么？')).toBeNull();
    expect(asksForHelp('you 能帮我看看这个 bug 吗？我的代码总是报错')).toBe(false);
    expect(topicOf('在我们之前的对话中 across our sessions 讨论了什么？')).toBe('在我们之前的对话中 across our sessions 讨论了什么？');
  });

  it('takes no Chinese message for a wish because it quotes an English "never", and keeps the English wishes', () => {
    expect(holdsUserWish('user: 他的代码注释里写着 never store passwords in plain text，这句话怎么翻译？')).toBe(false);
    expect(holdsUserWish('user: 以后回答请用中文')).toBe(false);
    expect(holdsUserWish('user: 你好\nassistant: 你好\nuser: Never use tabs in my code.')).toBe(true);
  });
});

describe("the question's words among the first candidates", () => {
  const said = (chunkId: string, text: string, score: number) => ({ hit: { chunkId, text }, score });
  const order = (question: string, list: ReturnType<typeof said>[]) => favourQuestionWords(question, list).map((r) => r.hit.chunkId);

  it('puts the turn one line of which says what was asked ahead of turns that only talk around it', () => {
    const list = [
      said('around', 'user: How was your week?\nassistant: Busy! Group meetings, the kids, a new painting.', 0.1),
      said('group', 'user: Anything new?\nassistant: Just work.', 0.095),
      said('answer', 'user: I went to the LGBTQ support group yesterday.\nassistant: That sounds powerful!', 0.09),
      said('other', 'user: The weather is nice.\nassistant: Sunny here too.', 0.085),
    ];
    expect(order('When did Caroline go to the LGBTQ support group?', list)[0]).toBe('answer');
  });

  it('scores a candidate by its best line: words scattered over several messages count for less', () => {
    const list = [
      said('scattered', 'user: I read a book about pottery.\nassistant: I love classes.\nuser: A weekend is short.', 0.1),
      said('together', 'user: The weekend pottery classes start soon.\nassistant: Nice.', 0.095),
      said('neither', 'user: Hello there.\nassistant: Hi.', 0.09),
    ];
    expect(order('Which pottery classes on the weekend?', list)).toEqual(['together', 'scattered', 'neither']);
  });

  it('weighs a word every candidate holds for little, and leaves the order alone when no line holds the rare words', () => {
    const list = [said('a', 'user: What did you say about the trip?', 0.1), said('b', 'user: What did you say about dinner?', 0.099), said('c', 'user: What did you say about work?', 0.098)];
    expect(order('What did you say about Kyoto?', list)).toEqual(['a', 'b', 'c']);
    expect(order('What did you say about dinner?', list)[0]).toBe('b');
  });

  it('takes English words by their stem, and not the role lines for words', () => {
    expect(stemmedWords('camped camping')).toEqual(new Set(['camp']));
    const list = [said('role', 'user: Lovely.\nassistant: Thanks.', 0.1), said('camp', 'assistant: We camped by the lake.', 0.09)];
    expect(order('Did the user go camping?', list)[0]).toBe('camp');
  });
});

describe('the turn after the best results', () => {
  const turn = (chunkId: string, seq: number, score: number) => ({ hit: { chunkId, sessionId: 's', text: chunkId, textHash: chunkId, msgIds: [chunkId], distance: 0, seq, part: 0 }, score });
  // A session of turns at positions 0..9: the chunk after a place is the turn just after it.
  const session = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((seq) => turn(`t${seq}`, seq, 0).hit);
  const reads = {
    chunksBeside: async (after: ReadonlyArray<{ seq: number }>, before: ReadonlyArray<{ seq: number }>) => ({ after: after.map((p) => session[p.seq + 1]), before: before.map((p) => session[p.seq - 1]) }),
  };
  const scores = async (fused: Array<ReturnType<typeof turn>>) => new Map((await favourNeighbours(reads, fused)).map((f) => [f.hit.chunkId, f.score]));

  it('brings the turn after the best result, which shares no words with the question, into the results', async () => {
    // "What did Joanna do after the rejection?": t4 tells of the rejection, t5 (no candidate) of what she did next.
    const fused = [turn('t4', 4, 1), turn('t0', 0, 0.9), turn('t8', 8, 0.8), ...[1, 2].map((i) => turn(`far${i}`, 20 + i, 0.3))];
    const order = (await favourNeighbours(reads, fused)).map((f) => f.hit.chunkId);
    expect(order[0]).toBe('t4');
    expect(order.indexOf('t5')).toBeGreaterThan(0);
    expect(order.indexOf('t5')).toBeLessThan(order.indexOf('far1'));
  });

  it('lends the turn before a short result too, which it often answers, but not the turn before a long one', async () => {
    // t4 a short reply ("Yeah, I painted that lake sunrise last year!") to the photo shown in t3.
    const short = (await favourNeighbours(reads, [turn('t4', 4, 1), turn('far1', 21, 0.3)])).map((f) => f.hit.chunkId);
    expect(short.indexOf('t3')).toBeGreaterThan(0);
    expect(short.indexOf('t3')).toBeLessThan(short.indexOf('far1'));
    const long = turn('t4', 4, 1);
    long.hit.text = `assistant: ${'A long reply that stands on its own. '.repeat(10)}`;
    expect(long.hit.text.length).toBeGreaterThan(SHORT_SOURCE_CHARS);
    const order = (await favourNeighbours(reads, [long, turn('far1', 21, 0.3)])).map((f) => f.hit.chunkId);
    expect(order).toContain('t5');
    expect(order).not.toContain('t3');
  });

  it('lends a share of the score, never more than the result itself, and raises a candidate only to it', async () => {
    const lent = await scores([turn('t4', 4, 1), turn('t5', 5, 0.05)]);
    expect(lent.get('t5')).toBeCloseTo(NEIGHBOUR_WEIGHT);
    expect(lent.get('t4')).toBe(1);
    expect((await scores([turn('t4', 4, 1), turn('t5', 5, 0.9)])).get('t5')).toBe(0.9);
  });

  it('lends only from the first candidates', async () => {
    const top = Array.from({ length: NEIGHBOUR_SOURCES }, (_, i) => turn(`top${i}`, 40 + i * 10, 1 - i * 0.01));
    const order = (await favourNeighbours(reads, [...top, turn('t7', 7, 0.5)])).map((f) => f.hit.chunkId);
    expect(order).not.toContain('t8');
  });
});

describe("the names of the store's speakers in a question", () => {
  it('reads names as capitalised words that begin no sentence, months and weekdays aside', () => {
    expect(namesIn("What did Melanie paint for Caroline's birthday in June?")).toEqual(['Melanie', 'Caroline']);
    expect(namesIn('When did Jon open his studio? Gina was there on Monday.')).toEqual(['Jon']);
    expect(withoutNames("What did Melanie paint for Caroline's birthday?", ['Caroline'])).toBe('What did Melanie paint for birthday?');
  });

  it('takes as speakers the names that begin the lines of chunks whose lines begin with names, never those of role lines', () => {
    const named = [{ text: 'Caroline: I adopted a puppy.\nMelanie: Lovely!' }];
    const roles = [{ text: 'user: Notes on the release\nFlask: upgrade to 3.0\nassistant: Done.' }];
    expect(speakersAmong(['Melanie', 'Oscar'], [named])).toEqual(['Melanie']);
    expect(speakersAmong(['Flask'], [roles])).toEqual([]);
  });
});
