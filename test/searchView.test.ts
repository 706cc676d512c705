/**
 * A search reads one version of the store on a handle of its own, held between searches, and asks
 * for the newest version while it runs: what another process saved before a search began is found
 * by it, and a held version whose files another process has since compacted away is not an error.
 */
import { describe, expect, it } from 'vitest';
import { WISH_WORDS } from '../electron/engine/search/standingWishes.js';
import { conversation, engineTestBed } from './helpers/engine.js';

const bed = engineTestBed();

describe('searches see the newest version of the store', () => {
  it('finds what another process saved after the previous search, also once that process compacted the store', async () => {
    const dataDir = bed.dataDir();
    const reader = await bed.open(dataDir);
    const writer = await bed.open(dataDir);
    try {
      await writer.save(conversation(12, { sessionId: 'gardening' }));
      // The reader's search handle now holds the store's version of this moment.
      expect((await reader.search('tomatoes and compost', { limit: 5 })).map((h) => h.sessionId)).toContain('gardening');

      // Another process adds a session the held version does not have.
      await writer.save({ sessionId: 'lighthouse', messages: [{ role: 'user', content: 'When was the lighthouse keeper on Skerryvore relieved by the supply boat?' }, { role: 'assistant', content: 'The Skerryvore lighthouse keeper was relieved every six weeks by the supply boat from Hynish.' }] });
      const found = await reader.search('Skerryvore lighthouse keeper supply boat', { limit: 3 });
      expect(found[0]?.sessionId).toBe('lighthouse');

      // Another process saves and compacts, removing the files of every older version: the reader's
      // held version can no longer be read, and its next search reads the newest one instead.
      await writer.save({ sessionId: 'harbour', messages: [{ role: 'user', content: 'Which harbour at Hynish did the Skerryvore supply boat sail from?' }, { role: 'assistant', content: 'It sailed from the small dock at Hynish on Tiree, built for the lighthouse works.' }] });
      await writer.store.rewriteAndPrune();
      const afterCompaction = await reader.search('harbour at Hynish on Tiree', { limit: 3 });
      expect(afterCompaction.map((h) => h.sessionId)).toContain('harbour');
      expect(await reader.store.countChunks()).toBe(await writer.store.countChunks());
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it("reads the chunks holding a wish word once per version, and again once a save adds one", async () => {
    const dataDir = bed.dataDir();
    const engine = await bed.open(dataDir);
    try {
      const wishes = (topic: string) => engine.store.searching((reads) => reads.textSearchFavouring(WISH_WORDS, topic, 1));
      await engine.save({ sessionId: 'zebras', messages: [{ role: 'user', content: 'Zebra stripes on the savanna: why does a zebra herd have stripes at all?' }, { role: 'assistant', content: 'Zebra stripes may deter biting flies: fewer flies land on striped coats in a savanna herd.' }] });
      // The best chunk by the request's words with the wish words (the zebra talk), and none by the wish words alone.
      expect((await wishes('zebra stripes savanna herd biting flies')).map((h) => h.sessionId)).toEqual(['zebras']);
      expect((await wishes('zebra stripes savanna herd biting flies')).map((h) => h.sessionId)).toEqual(['zebras']);
      await engine.save({ sessionId: 'style', messages: [{ role: 'user', content: 'Always answer me in British English, never American.' }, { role: 'assistant', content: 'Understood.' }] });
      // The store has moved on: the wish just saved is read, though the zebra talk still ranks first by all the words.
      expect((await wishes('zebra stripes savanna herd biting flies')).map((h) => h.sessionId)).toEqual(['zebras', 'style']);
    } finally {
      await engine.close();
    }
  });
});
