/**
 * A store whose creation was cut short (a table folder with no committed version yet, as a kill
 * during LanceDB's table creation leaves it) is an unfinished creation that the next open finishes,
 * not damage; a table that holds data is never cleared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, promises as fs, writeFileSync } from 'node:fs';
import path from 'node:path';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';
import { ChunkStore } from '../electron/engine/store/store.js';
import { conversation, openEngine, tempDir } from './helpers/engine.js';

// The subject is the store's tables, not embedding: the hashing stand-in embeds, and no model loads.
let embedder: HashEmbedder;
let root: string;
let cleanup: () => void;

beforeAll(async () => {
  embedder = new HashEmbedder();
  ({ dir: root, cleanup } = tempDir('sm-create-'));
});
afterAll(async () => {
  await embedder.close();
  cleanup();
});

/** A table folder as a kill mid-creation leaves it: a transaction file, no `_versions`. */
function unfinishedTable(storeDir: string, name: string): void {
  const dir = path.join(storeDir, `${name}.lance`, '_transactions');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, '0-0d1e2f.txn'), 'partial');
}

async function saveAndCheck(dataDir: string): Promise<void> {
  const engine = await openEngine(dataDir, embedder);
  try {
    const report = await engine.save(conversation(8));
    expect(report.new).toBe(8);
    expect((await engine.showSession('session-a')).messages.map((m) => m.msgId)).toEqual(conversation(8).messages.map((m) => m.msgId));
    expect(await engine.verify()).toMatchObject({ ok: true, problems: [] });
  } finally {
    await engine.close();
  }
}

describe('an interrupted store creation', () => {
  it('a meta table folder without a version: the store reads as new and the first save creates it', async () => {
    const dataDir = path.join(root, 'meta');
    unfinishedTable(path.join(dataDir, 'lancedb'), 'meta');
    expect(await ChunkStore.readModel(path.join(dataDir, 'lancedb'))).toBeNull();
    await saveAndCheck(dataDir);
  });

  it('meta created, chunks and sessions cut short: the next open creates them', async () => {
    const dataDir = path.join(root, 'chunks');
    const first = await openEngine(dataDir, embedder);
    await first.close();
    const storeDir = path.join(dataDir, 'lancedb');
    for (const name of ['chunks', 'sessions']) {
      await fs.rm(path.join(storeDir, `${name}.lance`), { recursive: true });
      unfinishedTable(storeDir, name);
    }
    await saveAndCheck(dataDir);
  });

  it('a table with data is opened, never cleared', async () => {
    const dataDir = path.join(root, 'kept');
    await saveAndCheck(dataDir);
    const engine = await openEngine(dataDir, embedder);
    try {
      expect((await engine.listSessions()).map((s) => s.sessionId)).toEqual(['session-a']);
      expect((await engine.save(conversation(8))).skippedSession).toBe(true);
    } finally {
      await engine.close();
    }
  });
});
