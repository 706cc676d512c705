/**
 * The UI tests' host: the in-memory `MemoryApi` (real staging, dry runs, saves, history, search, inspection and
 * events over in-memory data) behind the same client (`createMemoryApi`) the app uses, plus what a test needs
 * to steer it: an injected failure, a gate that holds an import mid-way, and a log of the requests.
 */
import type { SessionInput } from '../../shared/domain.js';
import type { ErrorCode } from '../../shared/errors.js';
import { createMemoryApi, MemoryApiError, type Channel, type MemoryApi, type Result } from '../../shared/ipc.js';
import { createInMemoryApi, type InMemoryHost, type InMemoryOptions } from '../../renderer/src/demo/inMemoryApi.js';

/** Holds the host's progress steps while closed; a test opens it to let an import run on. */
export class StepGate {
  private waiting: Array<() => void> = [];
  private closed = false;

  close(): void {
    this.closed = true;
  }

  open(): void {
    this.closed = false;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }

  /** Lets exactly one waiting step pass (and keeps the gate closed). */
  releaseOne(): void {
    this.waiting.shift()?.();
  }

  get pending(): number {
    return this.waiting.length;
  }

  step = (): Promise<void> => {
    if (!this.closed) return new Promise((resolve) => setTimeout(resolve, 0));
    return new Promise((resolve) => this.waiting.push(resolve));
  };
}

export interface MockMemory {
  api: MemoryApi;
  host: InMemoryHost;
  gate: StepGate;
  /** Every request the UI made, in order. */
  requests: Array<{ channel: Channel; request: unknown }>;
  /** The next request on `channel` fails with this error (as the host would answer it). */
  failNext(channel: Channel, code: ErrorCode, message: string): void;
  requestsOn(channel: Channel): unknown[];
}

const T0 = Date.parse('2025-03-01T09:00:00.000Z');
const DAY = 86_400_000;
const iso = (days: number): string => new Date(T0 + days * DAY).toISOString();

export const TRIP: SessionInput = {
  sessionId: 'trip-lisbon',
  title: 'Train trip to Lisbon',
  source: 'chatgpt',
  messages: [
    { msgId: 'q1', role: 'user', content: 'How do I get from Madrid to Lisbon by train?', timestamp: iso(0) },
    { msgId: 'a1', role: 'assistant', content: 'Take the regional train via Badajoz and change at Entroncamento.', timestamp: iso(0) },
    { msgId: 'q2', role: 'user', content: 'Which tickets should I buy in advance?', timestamp: iso(0) },
    { msgId: 'a2', role: 'assistant', content: 'Buy the Renfe leg early; the CP tickets can be bought at the station.', timestamp: iso(0) },
    { msgId: 'q3', role: 'user', content: 'Recommend a hotel near the station in Lisbon.', timestamp: iso(1) },
    { msgId: 'a3', role: 'assistant', content: 'Look around Santa Apolónia: the hotels there are close to the river and the metro.', timestamp: iso(1) },
  ],
};

export const MEMORY_ZH: SessionInput = {
  sessionId: 'memory-zh',
  title: '长期记忆的去重设计',
  source: 'claude',
  messages: [
    { msgId: 'z1', role: 'user', content: '如何让对话记忆增量保存而不重复？' },
    { msgId: 'z2', role: 'assistant', content: '给每条消息一个稳定的 ID 和内容哈希，再次保存时只写入新的消息。' },
  ],
};

export const GARDEN: SessionInput = {
  sessionId: 'garden-log',
  title: 'Garden log',
  source: 'openclaw',
  messages: Array.from({ length: 12 }, (_, index) => ({
    msgId: `g${index + 1}`,
    role: index % 2 ? ('assistant' as const) : ('user' as const),
    content: index % 2 ? `Water the tomato seedlings on day ${index}; compost keeps the soil moist.` : `What should I do in the garden on day ${index}?`,
  })),
};

/** Three sessions; the trip was saved twice (four messages, then all six with one edited). */
export function seedSample(host: InMemoryHost): void {
  host.save({ ...TRIP, messages: TRIP.messages.slice(0, 4).map((message) => (message.msgId === 'a2' ? { ...message, content: 'Buy the Renfe leg early.' } : message)) }, { at: iso(0) });
  host.save(TRIP, { at: iso(2) });
  host.save(MEMORY_ZH, { at: iso(3) });
  host.save(GARDEN, { at: iso(4) });
}

export function createMockMemory(options: { sample?: boolean; host?: InMemoryOptions } = {}): MockMemory {
  const gate = new StepGate();
  const host = createInMemoryApi({ step: gate.step, now: () => new Date(T0 + 10 * DAY), ...options.host });
  if (options.sample ?? true) seedSample(host);
  const failures = new Map<Channel, { code: ErrorCode; message: string }>();
  const requests: MockMemory['requests'] = [];
  const api = createMemoryApi(
    async (channel, request): Promise<Result<unknown>> => {
      requests.push({ channel, request });
      const failure = failures.get(channel);
      if (failure) {
        failures.delete(channel);
        return { ok: false, error: failure };
      }
      try {
        const handler = host.api[channel] as (request: unknown) => Promise<unknown>;
        return { ok: true, value: await handler(request) };
      } catch (error) {
        if (error instanceof MemoryApiError) return { ok: false, error: { code: error.code, message: error.message } };
        throw error;
      }
    },
    (event, listener) => host.api.on(event, listener),
  );
  return {
    api,
    host,
    gate,
    requests,
    failNext: (channel, code, message) => failures.set(channel, { code, message }),
    requestsOn: (channel) => requests.filter((entry) => entry.channel === channel).map((entry) => entry.request),
  };
}

/** A file as the person would drop it: a JSON transcript (or anything else, to see a file error). */
export function transcriptFile(name: string, content: unknown): File {
  return new File([typeof content === 'string' ? content : JSON.stringify(content)], name, { type: 'application/json' });
}
