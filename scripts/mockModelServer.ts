/**
 * A model server on 127.0.0.1 that answers the real assistants' API calls with a short text reply, so
 * that Claude Code, Codex CLI, Gemini CLI, Qwen Code and GitHub Copilot CLI run whole turns offline
 * (scripts/check-clients.ts). It speaks:
 * - Anthropic Messages (`POST /v1/messages`, streamed as server-sent events or not; `count_tokens`);
 * - OpenAI Responses (`POST /v1/responses`, streamed) and Chat Completions (`/v1/chat/completions`);
 * - Gemini (`:generateContent`, `:streamGenerateContent?alt=sse`, `:countTokens`).
 * The reply names the marker the last user message holds (a word `turn-<letters and digits>`), so a
 * check can tell which answer belongs to which turn. Every request is appended to `log` when given
 * (method, path, body), for reading each client's request shapes.
 *
 * With `toolCalls`, a request that offers tools and does not end with a tool's result (a turn's first
 * model call) is answered with one tool call, in that API's own shape: the client's shell tool
 * running `echo tool-output-<marker>` (see `toolCallOf`); the next request, which carries the result,
 * gets the text reply.
 */
import http from 'node:http';
import { appendFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

export interface MockModelServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Requests answered, by path without the query. */
  requests: string[];
  /** The tool calls made (with `toolCalls`), in order. */
  toolCalls: MockToolCall[];
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

/** The tool call the mock model makes: which tool, with which arguments (as the client's schema declares them). */
export interface MockToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** What the call's command prints, so a check can look for it in the store. */
export function mockToolOutput(marker: string | null): string {
  return `tool-output-${marker ?? 'none'}`;
}

/** A tool as the request offered it, whatever the API: its name and its arguments' schema. */
interface OfferedTool {
  name: string;
  schema: JsonSchema;
}

function offeredTools(body: Record<string, unknown>): OfferedTool[] {
  const offered: OfferedTool[] = [];
  for (const tool of (body.tools as Array<Record<string, unknown>> | undefined) ?? []) {
    // Gemini: groups of declarations; Chat Completions: `{type: 'function', function}`; Anthropic and Responses: flat.
    const declarations = (tool.functionDeclarations as Array<Record<string, unknown>> | undefined) ?? [(tool.function as Record<string, unknown> | undefined) ?? tool];
    for (const d of declarations) {
      if (typeof d.name !== 'string') continue;
      const schema = (d.input_schema ?? d.parameters ?? d.parametersJsonSchema ?? {}) as JsonSchema;
      offered.push({ name: d.name, schema });
    }
  }
  return offered;
}

/** Each client's shell tool, by the name it gives it. */
const SHELL_TOOLS = ['Bash', 'bash', 'shell', 'shell_command', 'exec_command', 'run_shell_command'];
const COMMAND_ARGS = ['command', 'cmd'];

/** One call of the request's shell tool: `echo tool-output-<marker>`, the other required arguments filled from their schema. */
export function toolCallOf(body: Record<string, unknown>, marker: string | null, id: string): MockToolCall | null {
  const offered = offeredTools(body);
  const tool = SHELL_TOOLS.map((name) => offered.find((t) => t.name === name)).find(Boolean);
  if (!tool) return null;
  const properties = tool.schema.properties ?? {};
  const commandArg = COMMAND_ARGS.find((name) => properties[name]);
  if (!commandArg) return null;
  const args: Record<string, unknown> = {};
  for (const name of tool.schema.required ?? []) args[name] = sampleOf(properties[name]);
  const line = `echo ${mockToolOutput(marker)}`;
  args[commandArg] = properties[commandArg]?.type === 'array' ? ['bash', '-lc', line] : line;
  if ('description' in properties) args.description = 'Print a word';
  return { id, name: tool.name, args };
}

/** Whether the request's last message carries a tool's result (the model called a tool, and now answers). */
function endsWithToolResult(body: Record<string, unknown>): boolean {
  const list = (body.messages ?? body.input ?? body.contents ?? []) as unknown[];
  const last = list[list.length - 1] as { role?: string; type?: string } | undefined;
  if (!last) return false;
  if (last.role === 'tool' || last.type === 'function_call_output' || last.type === 'custom_tool_call_output') return true;
  return /"type":"tool_result"|"functionResponse"/.test(JSON.stringify(last));
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

function anthropic(res: http.ServerResponse, body: { model?: string; stream?: boolean }, text: string, call: MockToolCall | null): void {
  const model = body.model ?? 'claude-mock';
  const id = `msg_mock_${Date.now()}`;
  const usage = { input_tokens: 12, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const stopReason = call ? 'tool_use' : 'end_turn';
  if (!body.stream) {
    const content = call ? [{ type: 'tool_use', id: call.id, name: call.name, input: call.args }] : [{ type: 'text', text }];
    json(res, 200, { id, type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage });
    return;
  }
  const block = call
    ? [
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.args) } } },
      ]
    : [
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } } },
      ];
  sse(res, [
    { event: 'message_start', data: { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } } },
    ...block,
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 9 } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]);
}

function openaiResponses(res: http.ServerResponse, body: { model?: string }, text: string, call: MockToolCall | null): void {
  const id = `resp_mock_${Date.now()}`;
  const item = call
    ? { type: 'function_call', id: `fc_mock_${Date.now()}`, status: 'completed', call_id: call.id, name: call.name, arguments: JSON.stringify(call.args) }
    : { type: 'message', id: `msg_mock_${Date.now()}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
  const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model ?? 'gpt-mock', status: 'in_progress', output: [] as unknown[] };
  const usage = { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 21 };
  const delta = call
    ? [
        { event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } } },
        { event: 'response.function_call_arguments.delta', data: { type: 'response.function_call_arguments.delta', item_id: item.id, output_index: 0, delta: JSON.stringify(call.args) } },
        { event: 'response.function_call_arguments.done', data: { type: 'response.function_call_arguments.done', item_id: item.id, output_index: 0, arguments: JSON.stringify(call.args) } },
      ]
    : [
        { event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress', content: [] } } },
        { event: 'response.output_text.delta', data: { type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: text } },
      ];
  sse(res, [
    { event: 'response.created', data: { type: 'response.created', response } },
    ...delta,
    { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
    { event: 'response.completed', data: { type: 'response.completed', response: { ...response, status: 'completed', output: [item], usage } } },
  ]);
}

function openaiChat(res: http.ServerResponse, body: { model?: string; stream?: boolean }, text: string, call: MockToolCall | null): void {
  const base = { id: `chatcmpl-mock-${Date.now()}`, created: Math.floor(Date.now() / 1000), model: body.model ?? 'gpt-mock' };
  const toolCalls = call ? [{ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }] : undefined;
  const finish = call ? 'tool_calls' : 'stop';
  if (!body.stream) {
    const message = call ? { role: 'assistant', content: null, tool_calls: toolCalls } : { role: 'assistant', content: text };
    json(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 } });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: object, finish: string | null) => `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.write(chunk(call ? { role: 'assistant', content: null, tool_calls: toolCalls!.map((c, index) => ({ index, ...c })) } : { role: 'assistant', content: text }, null));
  res.write(chunk({}, finish));
  res.end('data: [DONE]\n\n');
}

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
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

function gemini(res: http.ServerResponse, body: { generationConfig?: { responseMimeType?: string; responseJsonSchema?: JsonSchema; responseSchema?: JsonSchema } }, text: string, call: MockToolCall | null, stream: boolean): void {
  // Gemini CLI asks for JSON of a given schema in its side calls (which model to route to, whether
  // to go on): an object of that shape, rather than prose it cannot parse.
  const config = body.generationConfig ?? {};
  const wantsJson = config.responseMimeType === 'application/json';
  const reply = wantsJson ? JSON.stringify(sampleOf(config.responseJsonSchema ?? config.responseSchema)) : text;
  const parts = call && !wantsJson ? [{ functionCall: { id: call.id, name: call.name, args: call.args } }] : [{ text: reply }];
  const answer = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 9, totalTokenCount: 21 },
    modelVersion: 'gemini-mock',
  };
  if (stream) sse(res, [{ data: answer }]);
  else json(res, 200, answer);
}

export function startMockModelServer(options: { log?: string; toolCalls?: boolean } = {}): Promise<MockModelServer> {
  const requests: string[] = [];
  const toolCalls: MockToolCall[] = [];
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
      const marker = markerOf(body);
      const text = mockReply(marker);
      const p = url.pathname;
      const call = options.toolCalls && !p.endsWith('count_tokens') && !p.endsWith(':countTokens') && !endsWithToolResult(body) ? toolCallOf(body, marker, `call_mock_${toolCalls.length + 1}`) : null;
      if (call) toolCalls.push(call);
      if (req.method === 'POST' && p.endsWith('/messages/count_tokens')) json(res, 200, { input_tokens: 12 });
      else if (req.method === 'POST' && p.endsWith('/messages')) anthropic(res, body, text, call);
      else if (req.method === 'POST' && p.endsWith('/responses')) openaiResponses(res, body, text, call);
      else if (req.method === 'POST' && p.endsWith('/chat/completions')) openaiChat(res, body, text, call);
      else if (req.method === 'POST' && p.endsWith(':streamGenerateContent')) gemini(res, body, text, call, true);
      else if (req.method === 'POST' && p.endsWith(':generateContent')) gemini(res, body, text, call, false);
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
        toolCalls,
        close: () => new Promise((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
      });
    });
  });
}

// Run by itself (`tsx scripts/mockModelServer.ts [--tool-calls] [log file]`): serve until stopped, printing the URL.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const args = process.argv.slice(2);
  const log = args.find((arg) => arg !== '--tool-calls');
  void startMockModelServer({ ...(log ? { log } : {}), toolCalls: args.includes('--tool-calls') }).then((server) => console.log(server.url));
}
