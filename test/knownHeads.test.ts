/**
 * A save of the session this process saved last takes its chunk heads from that save while the store
 * is still at the version it left, instead of reading the session's rows again. A commit by anyone
 * else (another process's save, a forget, a compaction) moves the version on: the rows are read, and
 * nothing is lost or stored twice.
 */
import { describe, expect, it, vi } from 'vitest';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';
import { MemoryEngine } from '../electron/engine/engine.js';
import { conversation, scratchDirs } from './helpers/engine.js';

const dir = scratchDirs('sm-known-heads-');
const open = (dataDir: string) => MemoryEngine.open({ dataDir, embedder: new HashEmbedder(), lockWaitMs: 5_000 });

/** The stored message ids of a session in order, and whether a chunk id or a message is there twice. */
async function stored(engine: MemoryEngine, sessionId = 'session-a'): Promise<{ ids: string[]; chunkIds: string[] }> {
  const detail = await engine.showSession(sessionId);
  return { ids: detail.messages.map((m) => m.msgId), chunkIds: detail.chunks.map((c) => c.chunkId) };
}

const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `msg-${from + i}`);

describe('the chunk heads a save leaves', () => {
  it('serve the next save of the session in the same process: no read of its rows or messages, and the same store as reading them', async () => {
    const dataDir = dir();
    const engine = await open(dataDir);
    try {
      await engine.save(conversation(20));
      const heads = vi.spyOn(engine.store, 'sessionHeads');
      const messages = vi.spyOn(engine.store, 'ownedMessages');
      expect((await engine.save(conversation(26))).new).toBe(6);
      const edited = conversation(26);
      edited.messages[10] = { ...edited.messages[10]!, content: `${edited.messages[10]!.content} (edited)` };
      expect((await engine.save(edited)).updated).toBe(1);
      expect((await engine.save({ ...edited, messages: [...edited.messages, ...conversation(30).messages.slice(26)] })).new).toBe(4);
      expect(heads).not.toHaveBeenCalled();
      // The chunk reopened by each append and the one rebuilt around the edit: their messages were kept too.
      expect(messages).not.toHaveBeenCalled();
      const mine = await stored(engine);
      expect(mine.ids).toEqual(ids(0, 30));

      // The same saves in a store read afresh at each save give the same chunks.
      const otherDir = dir();
      const other = await open(otherDir);
      try {
        await other.save(conversation(20));
        await other.save(conversation(26));
        await other.save(edited);
        await other.close();
        const reread = await open(otherDir);
        try {
          await reread.save({ ...edited, messages: [...edited.messages, ...conversation(30).messages.slice(26)] });
          expect(await stored(reread)).toEqual(mine);
        } finally {
          await reread.close();
        }
      } finally {
        await other.close();
      }
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('are read again after another process saved the session, or a forget changed it, and nothing is lost or stored twice', async () => {
    const dataDir = dir();
    const laptop = await open(dataDir);
    const desktop = await open(dataDir);
    try {
      await laptop.save(conversation(10));
      const heads = vi.spyOn(laptop.store, 'sessionHeads');
      // Another process adds messages 10..13: the laptop's kept heads no longer describe the store.
      expect((await desktop.save(conversation(14))).new).toBe(4);
      expect((await laptop.save(conversation(18))).new).toBe(4);
      expect(heads).toHaveBeenCalledTimes(1);
      const after = await stored(laptop);
      expect(after.ids).toEqual(ids(0, 18));
      expect(new Set(after.chunkIds).size).toBe(after.chunkIds.length);

      // A forget of two messages in the same process commits too: the next save reads the rows.
      await laptop.forgetMessages('session-a', ['msg-16', 'msg-17']);
      heads.mockClear();
      expect((await laptop.save({ ...conversation(20), messages: conversation(20).messages.filter((m) => m.msgId !== 'msg-16' && m.msgId !== 'msg-17') })).new).toBe(2);
      expect(heads).toHaveBeenCalledTimes(1);
      expect((await stored(laptop)).ids).toEqual([...ids(0, 16), 'msg-18', 'msg-19']);
      expect((await laptop.verify()).ok).toBe(true);
    } finally {
      await laptop.close();
      await desktop.close();
    }
  }, 60_000);
});
