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
 *
 * With `memoryCalls`, a turn whose last user message holds `recall:<words>` is answered, on its first
 * model call, with one call of this memory's search tool as the client named it in its tool list (the
 * tool whose name ends in `search_memory` and whose description is ours; see `memoryCallOf`), with
 * `{"query": "<words>"}`. The next request, which carries the tool's result, is answered with one line
 * holding the first 200 characters of that result and the passage of it that has the words
 * (`mockRecall`), so a check sees what the tool gave.
 * A client that defers MCP tools behind a tool-search tool of its own gets a call of that tool first.
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
  /** The memory searches made (with `memoryCalls`), in order, each with the result the client sent back. */
  memoryCalls: MockMemoryCall[];
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
  /** The namespace the tool came in (OpenAI Responses: Codex puts each MCP server's tools in one, `mcp__session_memory`). */
  namespace?: string;
  /** A Responses `tool_search` tool run by the client (Codex's loader of deferred tools): called with a `tool_search_call` item. */
  toolSearch?: boolean;
  args: Record<string, unknown>;
}

/** What the call's command prints, so a check can look for it in the store. */
export function mockToolOutput(marker: string | null): string {
  return `tool-output-${marker ?? 'none'}`;
}

/** A tool as the request offered it, whatever the API: its name, its description and its arguments' schema. */
interface OfferedTool {
  name: string;
  namespace?: string;
  toolSearch?: boolean;
  description: string;
  schema: JsonSchema;
}

function offeredTools(body: Record<string, unknown>): OfferedTool[] {
  const offered: OfferedTool[] = [];
  // Responses: the tools a client's `tool_search` loaded come in its output item, not in `tools`.
  const loaded = ((body.input as Array<Record<string, unknown>> | undefined) ?? []).filter((item) => item?.type === 'tool_search_output').flatMap((item) => (item.tools as Array<Record<string, unknown>> | undefined) ?? []);
  for (const tool of [...((body.tools as Array<Record<string, unknown>> | undefined) ?? []), ...loaded]) {
    if (tool.type === 'tool_search') {
      offered.push({ name: 'tool_search', toolSearch: true, description: typeof tool.description === 'string' ? tool.description : '', schema: (tool.parameters ?? {}) as JsonSchema });
      continue;
    }
    // Gemini: groups of declarations; Responses: flat, or namespaces of them; Chat Completions: `{type: 'function', function}`; Anthropic: flat.
    const namespace = tool.type === 'namespace' && typeof tool.name === 'string' ? tool.name : undefined;
    const declarations = (tool.functionDeclarations as Array<Record<string, unknown>> | undefined) ?? (namespace ? (tool.tools as Array<Record<string, unknown>>) : undefined) ?? [(tool.function as Record<string, unknown> | undefined) ?? tool];
    for (const d of declarations) {
      if (typeof d.name !== 'string') continue;
      const schema = (d.input_schema ?? d.parameters ?? d.parametersJsonSchema ?? {}) as JsonSchema;
      offered.push({ name: d.name, ...(namespace ? { namespace } : {}), description: typeof d.description === 'string' ? d.description : '', schema });
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

/** A memory search the mock model made, and what the client gave back for it. */
export interface MockMemoryCall extends MockToolCall {
  /** The words after `recall:` in the turn's prompt. */
  words: string;
  /** The tool calls the client's tool list needed first (a tool-search tool that loads deferred tools). */
  loaders: MockToolCall[];
  /** The result the client sent back to the model, as text (null until it does). */
  result: string | null;
  /** The line the mock model answered with. */
  answer: string | null;
}

const RECALL = /recall:([a-z0-9][a-z0-9 ]*[a-z0-9])/i;

/** The words after `recall:` in the request's last user message that holds them. */
function recallOf(body: Record<string, unknown>): string | null {
  const list = (body.messages ?? body.input ?? body.contents ?? []) as unknown[];
  for (let i = list.length - 1; i >= 0; i--) {
    const message = list[i] as { role?: string } | null;
    if (!message || message.role !== 'user') continue;
    const found = JSON.stringify(message).match(RECALL);
    if (found) return found[1]!;
  }
  return null;
}

/** This memory's search tool, whatever name the client gave it (`mcp__session-memory__search_memory`, ...). */
const MEMORY_SEARCH = (tool: OfferedTool) => /search_memory$/.test(tool.name) && tool.description.startsWith('Search the archived conversations');
/** A client's tool that loads the tools it deferred (Claude Code's `ToolSearch`, Qwen Code's and Codex's `tool_search`). */
const TOOL_LOADER = (tool: OfferedTool) => /^tool_?search$/i.test(tool.name);
/** The deferred search tool's name where the request lists it without its schema (Claude Code: in a system message). */
const DEFERRED_SEARCH = /(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]*search_memory\b/;

/**
 * The answer to a turn whose memory search for `words` gave `result`: one line with the result's first
 * 200 characters and, as a model would quote the passage it found, the 100 from the first of the words
 * past them (the clients put a header or the structured result first: Codex's `Wall time:` line).
 */
export function mockRecall(marker: string | null, words: string, result: string): string {
  const flat = result.replace(/\s+/g, ' ').trim();
  const at = flat.toLowerCase().indexOf(words.split(' ')[0]!.toLowerCase(), 200);
  const passage = at < 0 ? '' : ` … ${flat.slice(at, at + 100).trim()}`;
  return `Recalled${marker ? ` ${marker}` : ''}: ${flat.slice(0, 200).trim()}${passage}`;
}

/** The call of this memory's search tool with `{"query": words}`, or of the client's tool loader when the search tool is not offered yet. */
export function memoryCallOf(body: Record<string, unknown>, words: string, id: string): { call: MockToolCall; loader: boolean } | null {
  const offered = offeredTools(body);
  const search = offered.find(MEMORY_SEARCH);
  const tool = search ?? offered.find(TOOL_LOADER);
  if (!tool) return null;
  const properties = tool.schema.properties ?? {};
  const args: Record<string, unknown> = {};
  for (const name of tool.schema.required ?? []) args[name] = sampleOf(properties[name]);
  // A loader that selects by name (Claude Code: `select:<name>`) gets the name the request listed; any other, keywords.
  const deferred = textOf(body.messages ?? body.input ?? body.contents ?? body).match(DEFERRED_SEARCH)?.[0];
  args.query = search ? words : tool.description.includes('select:') && deferred ? `select:${deferred}` : 'memory of past conversations';
  return { call: { id, name: tool.name, ...(tool.namespace ? { namespace: tool.namespace } : {}), ...(tool.toolSearch ? { toolSearch: true } : {}), args }, loader: !search };
}

/** Every string in a message, but those of the keys that name or route it, one a line. */
function textOf(message: unknown): string {
  const texts: string[] = [];
  const walk = (value: unknown, key: string): void => {
    if (typeof value === 'string') {
      if (!['type', 'role', 'id', 'call_id', 'tool_call_id', 'tool_use_id', 'name', 'status'].includes(key)) texts.push(value);
    } else if (Array.isArray(value)) for (const item of value) walk(item, key);
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(message, '');
  return texts.join('\n');
}

/** The text of the result the request's last message carries. */
function toolResultText(body: Record<string, unknown>): string {
  const list = (body.messages ?? body.input ?? body.contents ?? []) as unknown[];
  return textOf(list[list.length - 1]);
}

/** Whether the request's last message carries a tool's result (the model called a tool, and now answers). */
function endsWithToolResult(body: Record<string, unknown>): boolean {
  const list = (body.messages ?? body.input ?? body.contents ?? []) as unknown[];
  const last = list[list.length - 1] as { role?: string; type?: string } | undefined;
  if (!last) return false;
  if (last.role === 'tool' || last.type === 'function_call_output' || last.type === 'custom_tool_call_output' || last.type === 'tool_search_output') return true;
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
  const item = call?.toolSearch
    ? { type: 'tool_search_call', id: `ts_mock_${Date.now()}`, status: 'completed', call_id: call.id, execution: 'client', arguments: call.args }
    : call
    ? { type: 'function_call', id: `fc_mock_${Date.now()}`, status: 'completed', call_id: call.id, name: call.name, ...(call.namespace ? { namespace: call.namespace } : {}), arguments: JSON.stringify(call.args) }
    : { type: 'message', id: `msg_mock_${Date.now()}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
  const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model ?? 'gpt-mock', status: 'in_progress', output: [] as unknown[] };
  const usage = { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 21 };
  const delta = call?.toolSearch
    ? [{ event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress' } } }]
    : call
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

export function startMockModelServer(options: { log?: string; toolCalls?: boolean; memoryCalls?: boolean } = {}): Promise<MockModelServer> {
  const requests: string[] = [];
  const toolCalls: MockToolCall[] = [];
  const memoryCalls: MockMemoryCall[] = [];
  /**
   * A turn's memory search, step by step: its first model call gets the search (or the tool loader
   * first), the call that carries the loader's result gets the search, the one that carries the
   * search's result gets the answer.
   */
  const recall = (body: Record<string, unknown>, marker: string | null): { text: string; call: MockToolCall | null } | null => {
    const words = recallOf(body);
    if (!words) return null;
    const id = `call_mock_${toolCalls.length + memoryCalls.length + 1}`;
    const pending = memoryCalls.at(-1);
    if (!endsWithToolResult(body) || !pending || pending.result !== null) {
      const made = memoryCallOf(body, words, id);
      if (!made) return { text: `${mockReply(marker)} (no memory search tool offered)`, call: null };
      memoryCalls.push({ ...made.call, words, loaders: made.loader ? [made.call] : [], result: null, answer: null });
      return { text: '', call: made.call };
    }
    if (pending.loaders.length > 0 && pending.id === pending.loaders.at(-1)!.id) {
      // The loader answered: the search tool should be offered now.
      const made = memoryCallOf(body, words, id);
      if (!made || made.loader) return { text: `${mockReply(marker)} (the memory search tool was not loaded)`, call: null };
      memoryCalls[memoryCalls.length - 1] = { ...made.call, words, loaders: pending.loaders, result: null, answer: null };
      return { text: '', call: made.call };
    }
    pending.result = toolResultText(body);
    pending.answer = mockRecall(marker, words, pending.result);
    return { text: pending.answer, call: null };
  };
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
      const p = url.pathname;
      const counting = p.endsWith('count_tokens') || p.endsWith(':countTokens');
      // Gemini CLI's side calls (which model, whether to go on) ask for JSON, never for a tool.
      const sideCall = (body.generationConfig as { responseMimeType?: string } | undefined)?.responseMimeType === 'application/json';
      const recalled = options.memoryCalls && !counting && !sideCall ? recall(body, marker) : null;
      const text = recalled?.text ?? mockReply(marker);
      const call = recalled ? recalled.call : options.toolCalls && !counting && !endsWithToolResult(body) ? toolCallOf(body, marker, `call_mock_${toolCalls.length + 1}`) : null;
      if (call && !recalled) toolCalls.push(call);
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
        memoryCalls,
        close: () => new Promise((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
      });
    });
  });
}

// Run by itself (`tsx scripts/mockModelServer.ts [--tool-calls] [--memory-calls] [log file]`): serve until stopped, printing the URL.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const args = process.argv.slice(2);
  const log = args.find((arg) => !arg.startsWith('--'));
  void startMockModelServer({ ...(log ? { log } : {}), toolCalls: args.includes('--tool-calls'), memoryCalls: args.includes('--memory-calls') }).then((server) => console.log(server.url));
}
