/**
 * On a store in a folder, a re-save (a save that writes nothing) makes no commit of its own: its
 * history event is committed with the next save's, or by the engine a moment after the last save,
 * or when it closes. Every event is kept, and other processes read them once committed.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';
import { MemoryEngine } from '../electron/engine/engine.js';
import { HISTORY_FLUSH_DELAY_MS } from '../electron/engine/record/history.js';
import { conversation, scratchDirs } from './helpers/engine.js';
import { historyVersion } from './helpers/historyTable.js';

const dir = scratchDirs('sm-history-deferred-');
const open = (dataDir: string) => MemoryEngine.open({ dataDir, embedder: new HashEmbedder(), lockWaitMs: 5_000 });

/** The version of the folder store's history table. */
const historyVersionOf = (dataDir: string) => historyVersion(path.join(dataDir, 'lancedb'));

const counts = (events: Array<{ skippedSession: boolean; new: number }>) => events.map((e) => [e.skippedSession, e.new]);

describe('the save history of re-saves on a folder', () => {
  it('commits nothing for a re-save; its event goes with the next save that writes, and every event is read', async () => {
    const dataDir = dir();
    const engine = await open(dataDir);
    try {
      await engine.save(conversation(5));
      const afterFirst = await historyVersionOf(dataDir);
      for (let i = 0; i < 3; i++) expect((await engine.save(conversation(5))).skippedSession).toBe(true);
      expect(await historyVersionOf(dataDir)).toBe(afterFirst);
      expect(counts(await engine.history('session-a'))).toEqual([[false, 5], [true, 0], [true, 0], [true, 0]]);
      expect((await engine.save(conversation(7))).new).toBe(2);
      // The three re-saves' events with the append's, in one commit.
      expect(await historyVersionOf(dataDir)).toBe(afterFirst + 1);
    } finally {
      await engine.close();
    }
    const reader = await open(dataDir);
    try {
      expect(counts(await reader.history('session-a'))).toEqual([[false, 5], [true, 0], [true, 0], [true, 0], [false, 2]]);
    } finally {
      await reader.close();
    }
  }, 60_000);

  it('commits the events of re-saves a moment after the last save, and when the engine closes', async () => {
    const dataDir = dir();
    const engine = await open(dataDir);
    const reader = await open(dataDir);
    try {
      await engine.save(conversation(4));
      await engine.save(conversation(4));
      // Another process (here another engine) reads the re-save once the moment has passed.
      expect(counts(await reader.history('session-a'))).toEqual([[false, 4]]);
      // Committed by the engine on its own, no save or close needed (polled: the machine may be busy).
      await new Promise((resolve) => setTimeout(resolve, HISTORY_FLUSH_DELAY_MS));
      const until = Date.now() + 15_000;
      while (Date.now() < until && (await reader.history('session-a')).length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(counts(await reader.history('session-a'))).toEqual([[false, 4], [true, 0]]);
      await engine.save(conversation(4));
    } finally {
      await engine.close();
    }
    try {
      expect(counts(await reader.history('session-a'))).toEqual([[false, 4], [true, 0], [true, 0]]);
    } finally {
      await reader.close();
    }
  }, 60_000);

  it('drops a kept re-save event of a session another process forgot before it was committed', async () => {
    const dataDir = dir();
    const saver = await open(dataDir);
    const forgetter = await open(dataDir);
    try {
      await saver.save(conversation(4));
      // Kept, not committed: the other process forgets the session first.
      expect((await saver.save(conversation(4))).skippedSession).toBe(true);
      await forgetter.forget(['session-a']);
    } finally {
      // Closing commits what the saver kept: nothing of the forgotten session.
      await saver.close();
    }
    try {
      const events = await forgetter.history('session-a');
      expect(events.length).toBeGreaterThan(0);
      expect(events.every((event) => event.forgotten === true)).toBe(true);
    } finally {
      await forgetter.close();
    }
  }, 60_000);
});
