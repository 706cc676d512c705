/**
 * Forks: a session that starts with another archived session's messages is recorded as branched
 * from it, with how many messages they share; each stays whole when the other is overwritten or
 * forgotten.
 */
import { describe, expect, it } from 'vitest';
import type { MessageInput, SessionInput } from '../shared/domain.js';
import { conversation, hashEngineTestBed } from './helpers/engine.js';

// The subject is what a fork shares with its parent, not embedding: the hashing stand-in embeds (the
// searches look for a message's own words), and no model loads.
const bed = hashEngineTestBed();

async function fresh() {
  return bed.open(bed.dataDir());
}

const idless = (s: SessionInput): SessionInput => ({ ...s, messages: s.messages.map(({ role, content }): MessageInput => ({ role, content })) });
/** A session that copies the first `shared` messages of `from` under its own id, then goes its own way. */
function branch(from: SessionInput, sessionId: string, shared: number, own: number, start: number): SessionInput {
  return { sessionId, title: `Branch ${sessionId}`, messages: [...from.messages.slice(0, shared), ...conversation(own, { start }).messages].map(({ role, content }) => ({ role, content })) };
}
const forkOf = async (engine: Awaited<ReturnType<typeof fresh>>, id: string) => (await engine.listSessions()).find((s) => s.sessionId === id)?.forkOf;

describe('forks', () => {
  it('an id-less copy of a conversation that goes on is branched from it, and says at which message', async () => {
    const engine = await fresh();
    const a = idless(conversation(40, { sessionId: 'A' }));
    expect((await engine.save(a)).sharedMessages).toBe(0);
    const b = branch(a, 'B', 30, 10, 500);
    const report = await engine.save(b);
    expect(report.sharedMessages).toBe(30);
    expect(await forkOf(engine, 'B')).toEqual({ sessionId: 'A', sharedMessages: 30 });
    expect(await forkOf(engine, 'A')).toBeNull();
    // The original growing later does not make it a branch of its copy.
    expect((await engine.save({ ...a, messages: [...a.messages, ...idless(conversation(3, { start: 800 })).messages] })).sharedMessages).toBe(0);
    expect(await forkOf(engine, 'A')).toBeNull();
    expect((await engine.showSession('B')).forkOf).toEqual({ sessionId: 'A', sharedMessages: 30, title: 'A test conversation' });
    // The fork's own view still holds its whole conversation.
    expect((await engine.showSession('B')).messages).toHaveLength(40);
    // Its copied texts were embedded once: only chunks with new text cost an embedding.
    expect(report.embeddingsComputed).toBeLessThan(report.chunksWritten);
    // Re-saving it is recognised at once and still reports what it shares.
    expect(await engine.save(b)).toMatchObject({ skippedSession: true, sharedMessages: 30 });
    await engine.close();
  });

  it('a fork of a fork names the one it shares most with; fewer than four shared messages is no fork', async () => {
    const engine = await fresh();
    const a = conversation(40, { sessionId: 'A' });
    await engine.save(a);
    const b = branch(a, 'B', 20, 20, 600);
    await engine.save(b);
    const c = branch(b, 'C', 30, 5, 900);
    expect((await engine.save(c)).sharedMessages).toBe(30);
    expect(await forkOf(engine, 'C')).toEqual({ sessionId: 'B', sharedMessages: 30 });
    const d = branch(a, 'D', 3, 10, 1200);
    expect((await engine.save(d)).sharedMessages).toBe(0);
    expect(await forkOf(engine, 'D')).toBeNull();
    await engine.close();
  });

  it('overwriting or forgetting the parent leaves the fork whole and searchable', async () => {
    const engine = await fresh();
    const a = conversation(40, { sessionId: 'A' });
    await engine.save(a);
    const b = branch(a, 'B', 30, 10, 700);
    await engine.save(b);
    // The parent is replaced by something else entirely.
    await engine.save(conversation(12, { sessionId: 'A', start: 3000 }), { mode: 'overwrite' });
    expect(await forkOf(engine, 'B')).toBeNull();
    expect((await engine.showSession('B')).messages).toHaveLength(40);
    const hits = await engine.search(a.messages[3]!.content, { limit: 3 });
    expect(hits[0]!.sessionId).toBe('B');
    // A parent that is forgotten is named no more.
    await engine.save(branch(b, 'C', 35, 2, 4000));
    expect(await forkOf(engine, 'C')).toEqual({ sessionId: 'B', sharedMessages: 35 });
    await engine.forget(['B']);
    expect(await forkOf(engine, 'C')).toBeNull();
    expect((await engine.showSession('C')).messages).toHaveLength(37);
    expect((await engine.search(a.messages[3]!.content, { limit: 3 }))[0]!.sessionId).toBe('C');
    expect((await engine.verify()).problems).toEqual([]);
    await engine.close();
  });
});
