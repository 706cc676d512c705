import { describe, expect, it, vi } from 'vitest';
import { SEARCH_PREPARE_DELAY_MS } from '../electron/engine/engine.js';
import { conversation, engineTestBed } from './helpers/engine.js';

const bed = engineTestBed();

describe('the searches read what saves added after the saves, not between them', () => {
  it('reads once no save waits, after saves that follow one another, and the next search finds what they saved', async () => {
    const engine = await bed.open(bed.dataDir());
    try {
      await engine.save(conversation(6, { sessionId: 'first' }));
      // A search opens the view that reads new rows ahead of the next search.
      await engine.search('tomatoes and compost');
      const events: string[] = [];
      const prepare = engine.store.prepareSearch.bind(engine.store);
      vi.spyOn(engine.store, 'prepareSearch').mockImplementation(() => {
        events.push('read for searches');
        prepare();
      });
      await Promise.all([engine.save(conversation(4, { sessionId: 'b', start: 100 })).then(() => events.push('saved b')), engine.save(conversation(4, { sessionId: 'c', start: 200 })).then(() => events.push('saved c'))]);
      // Another save comes before the read was due: it waits for that one too.
      await engine.save(conversation(4, { sessionId: 'd', start: 300 }));
      events.push('saved d');
      await vi.waitFor(() => expect(events).toContain('read for searches'), { timeout: 10 * SEARCH_PREPARE_DELAY_MS + 5_000 });
      expect(events).toEqual(['saved b', 'saved c', 'saved d', 'read for searches']);
      const hits = await engine.search('marathon training pace', { limit: 50 });
      expect(new Set(hits.map((h) => h.sessionId))).toContain('d');
    } finally {
      await engine.close();
    }
  });

  it('reads nothing after a save that wrote nothing', async () => {
    const engine = await bed.open(bed.dataDir());
    try {
      const session = conversation(6, { sessionId: 'same' });
      await engine.save(session);
      await engine.search('tomatoes');
      // The first save's read is done (it was owed).
      await new Promise((resolve) => setTimeout(resolve, 2 * SEARCH_PREPARE_DELAY_MS));
      const prepare = vi.spyOn(engine.store, 'prepareSearch');
      await engine.save(session);
      await new Promise((resolve) => setTimeout(resolve, 2 * SEARCH_PREPARE_DELAY_MS));
      expect(prepare).not.toHaveBeenCalled();
    } finally {
      await engine.close();
    }
  });
});
