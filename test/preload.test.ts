import { describe, expect, it, vi } from 'vitest';
import { CHANNELS, EVENT_NAMES } from '../shared/ipc.js';
import { isMemoryBridge } from '../renderer/src/api.js';

const exposed = new Map<string, Record<string, (...args: unknown[]) => unknown>>();
const invoked: Array<[string, unknown]> = [];
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: Record<string, (...args: unknown[]) => unknown>) => exposed.set(key, api) },
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
    expect(Object.keys(bridge).sort()).toEqual([...CHANNELS, 'on'].sort());
    expect(isMemoryBridge(bridge)).toBe(true);
    await bridge['sessions:forget']!({ sessionIds: ['a'] });
    expect(invoked).toEqual([['sessions:forget', { sessionIds: ['a'] }]]);
    for (const event of EVENT_NAMES) expect(typeof bridge.on!(event, () => {})).toBe('function');
    expect(() => bridge.on!('onSomethingElse', () => {})).toThrow(/unknown event/);
  });
});
