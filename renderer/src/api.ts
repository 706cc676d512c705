/// <reference types="vite/client" />
/**
 * Picks how the UI talks to the engine host and returns one typed `MemoryApi` either way:
 * - the desktop app: the preload's bridge `window.memory`, one function per channel, each answering a `Result`;
 * - web mode: `POST /api/<channel>` with the page's `?token=` as a bearer token, events over SSE.
 * Every failure, including a broken transport, reaches the UI as a `MemoryApiError`.
 */
import type { ErrorInfo } from '../../shared/errors.js';
import { CHANNELS, createMemoryApi, EVENT_NAMES, MemoryApiError, type Channel, type EventName, type MemoryApi, type ResponseMap, type Result } from '../../shared/ipc.js';

/** What the Electron preload exposes as `window.memory`. */
export type MemoryBridge = { [C in Channel]: (request: unknown) => Promise<Result<unknown>> } & {
  on(event: EventName, listener: (payload: unknown) => void): () => void;
  /** Stages a File by its path (the desktop app's preload). */
  uploadFile?(file: File): Promise<Result<unknown>>;
};

function failure(code: ErrorInfo['code'], message: string): Result<never> {
  return { ok: false, error: { code, message } };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isResult(value: unknown): value is Result<unknown> {
  if (typeof value !== 'object' || value === null || typeof (value as { ok?: unknown }).ok !== 'boolean') return false;
  const candidate = value as { ok: boolean; error?: { code?: unknown; message?: unknown } };
  return candidate.ok ? 'value' in candidate : typeof candidate.error?.code === 'string' && typeof candidate.error.message === 'string';
}

export function isMemoryBridge(value: unknown): value is MemoryBridge {
  if (typeof value !== 'object' || value === null) return false;
  const bridge = value as Record<string, unknown>;
  return typeof bridge.on === 'function' && CHANNELS.every((channel) => typeof bridge[channel] === 'function');
}

/** The desktop app: Electron IPC through the preload bridge. */
export function createBridgeApi(bridge: MemoryBridge): MemoryApi {
  const api = createMemoryApi(
    async (channel, request) => {
      try {
        const result = await bridge[channel](request);
        return isResult(result) ? result : failure('internal', `The app answered ${channel} with something unexpected.`);
      } catch (error) {
        return failure('internal', messageOf(error));
      }
    },
    (event, listener) => bridge.on(event, listener),
  );
  if (typeof bridge.uploadFile === 'function') {
    const upload = bridge.uploadFile.bind(bridge);
    api.uploadFile = async (file) => {
      let result: Result<unknown>;
      try {
        result = await upload(file as File);
      } catch (error) {
        result = failure('internal', messageOf(error));
      }
      if (!isResult(result)) throw new MemoryApiError('internal', 'The app answered an upload with something unexpected.');
      if (!result.ok) throw new MemoryApiError(result.error.code, result.error.message);
      return result.value as ResponseMap['files:stage'];
    };
  }
  return api;
}

export interface HttpTransportOptions {
  /** Bearer token for the web-mode server (from the page URL). */
  token: string | null;
  /** Prefix of `/api/...`; empty for the page's own origin. */
  origin: string;
  fetch: typeof fetch;
  /** Absent where the browser has no SSE (then events simply never arrive). */
  EventSource?: typeof EventSource;
}

/** Web mode: JSON over HTTP for requests, Server-Sent Events for pushed progress. */
export function createHttpApi(options: HttpTransportOptions): MemoryApi {
  const { token, origin } = options;
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  let source: EventSource | null = null;

  const openEvents = (): void => {
    if (source || !options.EventSource || !token) return;
    source = new options.EventSource(`${origin}/api/events?token=${encodeURIComponent(token)}`);
    for (const event of EVENT_NAMES) {
      source.addEventListener(event, (message) => {
        let payload: unknown;
        try {
          payload = JSON.parse((message as MessageEvent<string>).data);
        } catch {
          return; // A malformed event is dropped; the next one carries the current state again.
        }
        for (const listener of listeners.get(event) ?? []) listener(payload);
      });
    }
  };

  const closeEventsIfUnused = (): void => {
    if ([...listeners.values()].some((set) => set.size > 0)) return;
    source?.close();
    source = null;
  };

  const api = createMemoryApi(
    async (channel, request) => {
      if (!token) return failure('forbidden', 'This page has no access token. Open the address the server printed (it ends in ?token=…).');
      let response: Response;
      try {
        response = await options.fetch(`${origin}/api/${channel}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
          body: JSON.stringify(request),
        });
      } catch (error) {
        return failure('internal', `Cannot reach the server: ${messageOf(error)}`);
      }
      let body: unknown;
      try {
        body = await response.json();
      } catch {
        body = undefined;
      }
      if (isResult(body)) return body;
      if (response.status === 401 || response.status === 403) return failure('forbidden', 'The server refused the access token.');
      return failure('internal', `The server answered ${channel} with HTTP ${response.status}.`);
    },
    (event, listener) => {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener);
      openEvents();
      return () => {
        set.delete(listener);
        closeEventsIfUnused();
      };
    },
  );
  // A file is the body of its own request, which the browser streams from disk.
  api.uploadFile = async (file) => {
    if (!token) throw new MemoryApiError('forbidden', 'This page has no access token. Open the address the server printed (it ends in ?token=…).');
    let response: Response;
    try {
      response = await options.fetch(`${origin}/api/files:upload?name=${encodeURIComponent(file.name.slice(0, 255) || 'file')}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/octet-stream', Authorization: `Bearer ${token}` },
        body: file as File,
      });
    } catch (error) {
      throw new MemoryApiError('internal', `Cannot reach the server: ${messageOf(error)}`);
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    if (!isResult(body)) throw new MemoryApiError(response.status === 401 || response.status === 403 ? 'forbidden' : 'internal', `The server answered the upload of ${file.name} with HTTP ${response.status}.`);
    if (!body.ok) throw new MemoryApiError(body.error.code, body.error.message);
    return body.value as ResponseMap['files:stage'];
  };
  return api;
}

/**
 * The bridge when the preload provided one, else HTTP. A demo over in-memory data exists only in builds made
 * with VITE_MEMORY_DEMO=1 and only when the URL asks for it with `?mock` (`?mock&empty` starts with nothing archived);
 * other builds leave it out entirely.
 */
export async function resolveMemoryApi(win: Window = window): Promise<MemoryApi> {
  // Read without augmenting the global Window type: the preload's own declaration of it stays the one truth.
  const bridge = (win as Window & { memory?: unknown }).memory;
  if (isMemoryBridge(bridge)) return createBridgeApi(bridge);
  const params = new URL(win.location.href).searchParams;
  const { EventSource: eventSource } = win as Window & { EventSource?: typeof EventSource };
  if (import.meta.env.VITE_MEMORY_DEMO === '1' && params.has('mock')) {
    const { createDemoApi } = await import('./demo/demoData.js');
    return createDemoApi({ empty: params.has('empty') });
  }
  return createHttpApi({
    token: params.get('token'),
    origin: '',
    fetch: win.fetch.bind(win),
    EventSource: typeof eventSource === 'function' ? eventSource : undefined,
  });
}
