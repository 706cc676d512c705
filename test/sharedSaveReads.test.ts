/**
 * What an append reads from a store on a bucket, where every read is requests that each wait a
 * round trip: the session's rows once (the reopened chunk's messages come with them), and not the
 * sessions table when the title, source and parent it gives are those already recorded; the state
 * table once for both journals a kill may have left (a forget's, a purge's). A changed
 * title is still written, and another machine reads it. Real S3 and DynamoDB servers (s3rver and
 * dynalite on 127.0.0.1).
 */
import { describe, expect, it, vi } from 'vitest';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';
import { MemoryEngine } from '../electron/engine/engine.js';
import type { StoreState } from '../electron/engine/record/storeState.js';
import { conversation, scratchDirs } from './helpers/engine.js';
import type { ObjectStoreServers } from './helpers/objectStore.js';
import { useObjectStoreServers } from './helpers/objectStoreMachine.js';

let servers: ObjectStoreServers;
// The subject is what a save reads and holds on the bucket, not embedding: the hashing stand-in embeds, and no model loads.
const embedder = new HashEmbedder();
const dir = scratchDirs('sm-shared-reads-');
useObjectStoreServers((started) => {
  servers = started;
});

const open = (storeUri: string) => MemoryEngine.open({ dataDir: dir(), storeUri, embedder, lockWaitMs: 20_000 });

describe('an append to a shared store', () => {
  it('reads no session rows (its last save left their heads) and the sessions table only for a changed title; the result is what one save gives', async () => {
    const { sharedUri } = await servers.newStore('reads');
    const engine = await open(sharedUri);
    try {
      await engine.save(conversation(32));
      const heads = vi.spyOn(engine.store, 'sessionHeads');
      const owned = vi.spyOn(engine.store, 'ownedMessages');
      const meta = vi.spyOn(engine.store, 'sessionMeta');
      const state = (engine as unknown as { ctx: { state: StoreState } }).ctx.state;
      const stateGets = vi.spyOn(state, 'get');
      const stateAlls = vi.spyOn(state, 'all');
      // A message of the same turn: the last chunk is reopened and grows by it.
      const followed = conversation(32);
      followed.messages.push({ msgId: 'msg-follow-up', role: 'assistant', content: 'One more thing: write the plan down before the week starts.' });
      const grown = await engine.save(followed);
      expect([grown.new, grown.chunksDeleted]).toEqual([1, 1]);
      // The store is at the version this process's last save left: its heads, with the messages, serve.
      expect(heads).not.toHaveBeenCalled();
      expect(owned).not.toHaveBeenCalled();
      expect(meta).not.toHaveBeenCalled();
      // Work a kill left owed (a forget's or a purge's journal): looked for in one read, none found.
      expect(stateGets.mock.calls.filter(([kind]) => kind === 'journal')).toHaveLength(0);
      expect(stateAlls.mock.calls.filter(([kind]) => kind === 'journal')).toHaveLength(1);

      // A new title is written (the row read, then replaced).
      const renamed = { ...conversation(36), title: 'Renamed on the laptop' };
      expect((await engine.save({ ...renamed, messages: [...followed.messages, ...renamed.messages.slice(32)] })).new).toBe(4);
      expect(meta).toHaveBeenCalledTimes(1);
    } finally {
      await engine.close();
    }
    const desktop = await open(sharedUri);
    try {
      const shown = await desktop.showSession('session-a');
      expect(shown.title).toBe('Renamed on the laptop');
      expect(shown.messages.map((m) => m.msgId)).toEqual([...conversation(32).messages.map((m) => m.msgId), 'msg-follow-up', 'msg-32', 'msg-33', 'msg-34', 'msg-35']);
      // Every message once, in chunks that hold it.
      const heads = await desktop.store.sessionHeads('session-a');
      const ownedIds = heads.flatMap((h) => h.owned.map((o) => o.msgId));
      expect(new Set(ownedIds).size).toBe(ownedIds.length);
      expect(ownedIds).toHaveLength(37);
    } finally {
      await desktop.close();
    }
  }, 120_000);
});
