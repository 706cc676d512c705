// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { CHANNELS, MemoryApiError, type Result } from '../../shared/ipc.js';
import { createBridgeApi, createHttpApi, isMemoryBridge, resolveMemoryApi, type MemoryBridge } from '../../renderer/src/api.js';

function fakeBridge(answer: (channel: string, request: unknown) => Promise<Result<unknown>>): MemoryBridge & { listeners: Map<string, (payload: unknown) => void> } {
  const listeners = new Map<string, (payload: unknown) => void>();
  const bridge: Record<string, unknown> = {
    listeners,
    on: (event: string, listener: (payload: unknown) => void) => {
      listeners.set(event, listener);
      return () => listeners.delete(event);
    },
  };
  for (const channel of CHANNELS) bridge[channel] = (request: unknown) => answer(channel, request);
  return bridge as MemoryBridge & { listeners: Map<string, (payload: unknown) => void> };
}

class FakeEventSource {
  static last: FakeEventSource | null = null;
  listeners = new Map<string, (event: MessageEvent) => void>();
  closed = false;
  constructor(readonly url: string) {
    FakeEventSource.last = this;
  }
  addEventListener(name: string, listener: (event: MessageEvent) => void): void {
    this.listeners.set(name, listener);
  }
  close(): void {
    this.closed = true;
  }
}

describe('the transport', () => {
  it('uses the preload bridge when there is one, unwrapping results and errors', async () => {
    const bridge = fakeBridge(async (channel, request) =>
      channel === 'sessions:show' ? { ok: false, error: { code: 'not_found', message: `no ${(request as { sessionId: string }).sessionId}` } } : { ok: true, value: [] },
    );
    expect(isMemoryBridge(bridge)).toBe(true);
    expect(isMemoryBridge({ on: () => undefined })).toBe(false);
    const api = createBridgeApi(bridge);
    expect(await api['sessions:list']({})).toEqual([]);
    const failure = await api['sessions:show']({ sessionId: 'x' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MemoryApiError);
    expect(failure).toMatchObject({ code: 'not_found', message: 'no x' });

    const seen: unknown[] = [];
    const unsubscribe = api.on('onSaveProgress', (payload) => seen.push(payload));
    bridge.listeners.get('onSaveProgress')?.({ phase: 'embedding' });
    unsubscribe();
    expect(seen).toEqual([{ phase: 'embedding' }]);
    expect(bridge.listeners.size).toBe(0);
  });

  it('turns a thrown IPC error into a MemoryApiError', async () => {
    const api = createBridgeApi(fakeBridge(async () => {
      throw new Error('Error invoking remote method');
    }));
    await expect(api['sessions:list']({})).rejects.toMatchObject({ name: 'MemoryApiError', code: 'internal', message: 'Error invoking remote method' });
  });

  it('posts JSON with the bearer token in web mode and listens to server-sent events', async () => {
    const sent: Array<{ url: string; init: RequestInit }> = [];
    const api = createHttpApi({
      token: 'secret',
      origin: '',
      fetch: (async (url: string, init: RequestInit) => {
        sent.push({ url, init });
        return new Response(JSON.stringify({ ok: false, error: { code: 'locked', message: 'busy' } }), { status: 409 });
      }) as typeof fetch,
      EventSource: FakeEventSource as unknown as typeof EventSource,
    });
    await expect(api['search:query']({ query: 'x' })).rejects.toMatchObject({ code: 'locked', message: 'busy' });
    expect(sent[0]?.url).toBe('/api/search:query');
    expect(sent[0]?.init.method).toBe('POST');
    expect(new Headers(sent[0]?.init.headers).get('Authorization')).toBe('Bearer secret');
    expect(JSON.parse(String(sent[0]?.init.body))).toEqual({ query: 'x' });

    const seen: unknown[] = [];
    const unsubscribe = api.on('onSaveProgress', (payload) => seen.push(payload));
    const source = FakeEventSource.last;
    expect(source?.url).toBe('/api/events?token=secret');
    source?.listeners.get('onSaveProgress')?.(new MessageEvent('onSaveProgress', { data: '{"done":3}' }));
    source?.listeners.get('onSaveProgress')?.(new MessageEvent('onSaveProgress', { data: 'not json' }));
    expect(seen).toEqual([{ done: 3 }]);
    unsubscribe();
    expect(source?.closed).toBe(true);
  });

  it('explains a missing token and a server that does not answer JSON', async () => {
    const noToken = createHttpApi({ token: null, origin: '', fetch: (async () => new Response('{}')) as typeof fetch });
    await expect(noToken['sessions:list']({})).rejects.toMatchObject({ code: 'forbidden' });
    const broken = createHttpApi({ token: 't', origin: '', fetch: (async () => new Response('<html>', { status: 502 })) as typeof fetch });
    await expect(broken['sessions:list']({})).rejects.toMatchObject({ code: 'internal', message: 'The server answered sessions:list with HTTP 502.' });
    const refused = createHttpApi({ token: 't', origin: '', fetch: (async () => new Response('', { status: 401 })) as typeof fetch });
    await expect(refused['sessions:list']({})).rejects.toMatchObject({ code: 'forbidden' });
    const offline = createHttpApi({ token: 't', origin: '', fetch: (async () => { throw new TypeError('Failed to fetch'); }) as typeof fetch });
    await expect(offline['sessions:list']({})).rejects.toMatchObject({ code: 'internal', message: 'Cannot reach the server: Failed to fetch' });
  });

  it('picks the bridge from window.memory, else HTTP with the token from the page address', async () => {
    const bridge = fakeBridge(async () => ({ ok: true, value: 'from bridge' }));
    const withBridge = window as Window & { memory?: unknown };
    withBridge.memory = bridge;
    try {
      expect(await (await resolveMemoryApi())['sessions:list']({})).toBe('from bridge');
    } finally {
      delete withBridge.memory;
    }
    const requests: Array<[string, RequestInit]> = [];
    const fakeWindow = {
      location: new URL('http://127.0.0.1:4321/?token=abc#/sessions'),
      fetch: async (url: string, init: RequestInit) => {
        requests.push([url, init]);
        return new Response(JSON.stringify({ ok: true, value: 'from http' }));
      },
    } as unknown as Window;
    expect(await (await resolveMemoryApi(fakeWindow))['sessions:list']({})).toBe('from http');
    expect(new Headers(requests[0]?.[1].headers).get('Authorization')).toBe('Bearer abc');
  });
});

describe('uploading a file without reading it into the page', () => {
  it('web mode sends the File itself as the body of files:upload, with the token; errors come back typed', async () => {
    const calls: Array<{ url: string; init: RequestInit }> = [];
    const answers: Array<Result<unknown>> = [{ ok: true, value: { fileId: 'f1', name: 'chat.json', size: 4 } }, { ok: false, error: { code: 'invalid_request', message: 'chat.json: larger than the 8192 MB a file may have' } }];
    const api = createHttpApi({
      token: 'tok',
      origin: '',
      fetch: (async (url: string, init: RequestInit) => {
        calls.push({ url, init });
        return new Response(JSON.stringify(answers.shift()), { status: 200 });
      }) as typeof fetch,
    });
    const file = new File(['{"a"'], 'chat.json');
    expect(await api.uploadFile!(file)).toEqual({ fileId: 'f1', name: 'chat.json', size: 4 });
    expect(calls[0]!.url).toBe('/api/files:upload?name=chat.json');
    expect(calls[0]!.init.body).toBe(file);
    expect(calls[0]!.init.headers).toMatchObject({ Authorization: 'Bearer tok' });
    await expect(api.uploadFile!(file)).rejects.toEqual(new MemoryApiError('invalid_request', 'chat.json: larger than the 8192 MB a file may have'));
  });

  it('the desktop app hands the File to the preload, which stages it by its path', async () => {
    const bridge = fakeBridge(async () => ({ ok: true, value: [] }));
    const given: unknown[] = [];
    bridge.uploadFile = async (file: File) => {
      given.push(file);
      return { ok: true, value: { fileId: 'f2', name: file.name, size: file.size } };
    };
    const api = createBridgeApi(bridge);
    const file = new File(['12345'], 'export.zip');
    expect(await api.uploadFile!(file)).toEqual({ fileId: 'f2', name: 'export.zip', size: 5 });
    expect(given).toEqual([file]);
    // Without the preload's function, there is none (the page then sends the bytes with files:stage).
    expect(createBridgeApi(fakeBridge(async () => ({ ok: true, value: [] }))).uploadFile).toBeUndefined();
  });
});
