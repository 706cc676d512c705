/**
 * A model server on 127.0.0.1 that answers the real assistants' API calls with a short text reply and
 * no tool call, so that Claude Code, Codex CLI, Gemini CLI, Qwen Code and GitHub Copilot CLI run whole
 * turns offline
 * (scripts/check-clients.ts). It speaks:
 * - Anthropic Messages (`POST /v1/messages`, streamed as server-sent events or not; `count_tokens`);
 * - OpenAI Responses (`POST /v1/responses`, streamed) and Chat Completions (`/v1/chat/completions`);
 * - Gemini (`:generateContent`, `:streamGenerateContent?alt=sse`, `:countTokens`).
 * The reply names the marker the last user message holds (a word `turn-<letters and digits>`), so a
 * check can tell which answer belongs to which turn. Every request is appended to `log` when given
 * (method, path, body), for reading each client's request shapes.
 */
import http from 'node:http';
import { appendFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

export interface MockModelServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Requests answered, by path without the query. */
  requests: string[];
  close(): Promise<void>;
}

/** The answer to a prompt that holds `marker` (or none). */
export function mockReply(marker: string | null): string {
  return marker ? `Noted ${marker}: the mock model answers in one line.` : 'The mock model answers in one line.';
}

const MARKER = /turn-[a-z0-9]+/g;

/** The last marker of the request's last user message (every API puts its messages in a list). */
function markerOf(body: unknown): string | null {
  const messages = (body as { messages?: unknown[]; input?: unknown[]; contents?: unknown[] } | null) ?? {};
  const list = messages.messages ?? messages.input ?? messages.contents ?? [];
  for (let i = list.length - 1; i >= 0; i--) {
    const message = list[i] as { role?: string } | null;
    if (!message || message.role !== 'user') continue;
    const found = JSON.stringify(message).match(MARKER);
    if (found) return found[found.length - 1] ?? null;
  }
  return null;
}

function sse(res: http.ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const { event, data } of events) res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  res.end();
}

function json(res: http.ServerResponse, status: number, data: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(data));
}

function anthropic(res: http.ServerResponse, body: { model?: string; stream?: boolean }, text: string): void {
  const model = body.model ?? 'claude-mock';
  const id = `msg_mock_${Date.now()}`;
  const usage = { input_tokens: 12, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (!body.stream) {
    json(res, 200, { id, type: 'message', role: 'assistant', model, content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage });
    return;
  }
  sse(res, [
    { event: 'message_start', data: { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } } },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]);
}

function openaiResponses(res: http.ServerResponse, body: { model?: string }, text: string): void {
  const id = `resp_mock_${Date.now()}`;
  const item = { type: 'message', id: `msg_mock_${Date.now()}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
  const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model ?? 'gpt-mock', status: 'in_progress', output: [] as unknown[] };
  const usage = { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 21 };
  sse(res, [
    { event: 'response.created', data: { type: 'response.created', response } },
    { event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress', content: [] } } },
    { event: 'response.output_text.delta', data: { type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: text } },
    { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
    { event: 'response.completed', data: { type: 'response.completed', response: { ...response, status: 'completed', output: [item], usage } } },
  ]);
}

function openaiChat(res: http.ServerResponse, body: { model?: string; stream?: boolean }, text: string): void {
  const base = { id: `chatcmpl-mock-${Date.now()}`, created: Math.floor(Date.now() / 1000), model: body.model ?? 'gpt-mock' };
  if (!body.stream) {
    json(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 } });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: object, finish: string | null) => `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.write(chunk({ role: 'assistant', content: text }, null));
  res.write(chunk({}, 'stop'));
  res.end('data: [DONE]\n\n');
}

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: unknown[];
}

/** A small value of the schema's shape: its first choice, "mock", 10, false, each property filled. */
function sampleOf(schema: JsonSchema | undefined): unknown {
  if (schema?.enum?.length) return schema.enum[0];
  switch ((schema?.type ?? 'object').toLowerCase()) {
    case 'string': return 'mock';
    case 'integer':
    case 'number': return 10;
    case 'boolean': return false;
    case 'array': return [];
    default: return Object.fromEntries(Object.entries(schema?.properties ?? {}).map(([key, value]) => [key, sampleOf(value)]));
  }
}

function gemini(res: http.ServerResponse, body: { generationConfig?: { responseMimeType?: string; responseJsonSchema?: JsonSchema; responseSchema?: JsonSchema } }, text: string, stream: boolean): void {
  // Gemini CLI asks for JSON of a given schema in its side calls (which model to route to, whether
  // to go on): an object of that shape, rather than prose it cannot parse.
  const config = body.generationConfig ?? {};
  const wantsJson = config.responseMimeType === 'application/json';
  const reply = wantsJson ? JSON.stringify(sampleOf(config.responseJsonSchema ?? config.responseSchema)) : text;
  const answer = {
    candidates: [{ content: { role: 'model', parts: [{ text: reply }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 9, totalTokenCount: 21 },
    modelVersion: 'gemini-mock',
  };
  if (stream) sse(res, [{ data: answer }]);
  else json(res, 200, answer);
}

export function startMockModelServer(options: { log?: string } = {}): Promise<MockModelServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      requests.push(`${req.method} ${url.pathname}`);
      if (options.log) appendFileSync(options.log, `${JSON.stringify({ method: req.method, path: req.url, headers: req.headers, body: raw.slice(0, 200_000) })}\n`);
      let body: Record<string, unknown> = {};
      try {
        body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      } catch {
        json(res, 400, { error: { message: 'the body is not JSON' } });
        return;
      }
      const text = mockReply(markerOf(body));
      const p = url.pathname;
      if (req.method === 'POST' && p.endsWith('/messages/count_tokens')) json(res, 200, { input_tokens: 12 });
      else if (req.method === 'POST' && p.endsWith('/messages')) anthropic(res, body, text);
      else if (req.method === 'POST' && p.endsWith('/responses')) openaiResponses(res, body, text);
      else if (req.method === 'POST' && p.endsWith('/chat/completions')) openaiChat(res, body, text);
      else if (req.method === 'POST' && p.endsWith(':streamGenerateContent')) gemini(res, body, text, true);
      else if (req.method === 'POST' && p.endsWith(':generateContent')) gemini(res, body, text, false);
      else if (req.method === 'POST' && p.endsWith(':countTokens')) json(res, 200, { totalTokens: 12 });
      else if (req.method === 'GET' && p.endsWith('/models')) json(res, 200, { object: 'list', data: [], models: [] });
      else json(res, 404, { error: { message: `the mock model server does not serve ${req.method} ${p}` } });
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () => new Promise((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
      });
    });
  });
}

// Run by itself (`tsx scripts/mockModelServer.ts [log file]`): serve until stopped, printing the URL.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  void startMockModelServer(process.argv[2] ? { log: process.argv[2] } : {}).then((server) => console.log(server.url));
}
