import { describe, expect, it, vi } from 'vitest';
import { CHANNELS, EVENT_NAMES } from '../shared/ipc.js';
import { isMemoryBridge } from '../renderer/src/api.js';

const exposed = new Map<string, Record<string, (...args: unknown[]) => unknown>>();
const invoked: Array<[string, unknown]> = [];
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: Record<string, (...args: unknown[]) => unknown>) => exposed.set(key, api) },
  webUtils: { getPathForFile: (file: { path?: string }) => file.path ?? '' },
  ipcRenderer: {
    invoke: async (channel: string, request: unknown) => {
      invoked.push([channel, request]);
      return { ok: true, value: null };
    },
    on: () => {},
    removeListener: () => {},
  },
}));

describe('the preload bridge', () => {
  it('exposes a function for every channel, so the desktop UI uses it rather than falling back to HTTP', async () => {
    await import('../electron/preload/preload.js');
    const bridge = exposed.get('memory')!;
    expect(Object.keys(bridge).sort()).toEqual([...CHANNELS, 'on', 'uploadFile'].sort());
    expect(isMemoryBridge(bridge)).toBe(true);
    await bridge['sessions:forget']!({ sessionIds: ['a'] });
    expect(invoked).toEqual([['sessions:forget', { sessionIds: ['a'] }]]);
    // A dropped file goes by its path, which only the File of a real drop has.
    expect(await bridge.uploadFile!({ name: 'chat.json', path: '/home/ana/chat.json' })).toEqual({ ok: true, value: null });
    expect(invoked.at(-1)).toEqual(['files:stagePath', { path: '/home/ana/chat.json' }]);
    expect(await bridge.uploadFile!({ name: 'made-up.json' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    for (const event of EVENT_NAMES) expect(typeof bridge.on!(event, () => {})).toBe('function');
    expect(() => bridge.on!('onSomethingElse', () => {})).toThrow(/unknown event/);
  });
});
