/**
 * Valid transcripts of every format the importers understand: small ones written here (each
 * exercising the features a mutation can break: trees, tool calls, swipes...) plus the importer
 * fixtures. The fuzzer mutates copies of these.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type FuzzFormat = 'json' | 'chatgpt' | 'claude' | 'openclaw' | 'open-webui' | 'sillytavern' | 'claude-code' | 'markdown' | 'codex' | 'gemini-cli' | 'continue' | 'qwen-code' | 'copilot-cli' | 'antigravity';

export const FUZZ_FORMATS: readonly FuzzFormat[] = ['json', 'chatgpt', 'claude', 'openclaw', 'open-webui', 'sillytavern', 'claude-code', 'markdown', 'codex', 'gemini-cli', 'continue', 'qwen-code', 'copilot-cli', 'antigravity'];

/** Formats whose transcripts are JSONL files. */
const JSONL_FORMATS: ReadonlySet<FuzzFormat> = new Set(['openclaw', 'sillytavern', 'claude-code', 'codex', 'gemini-cli', 'qwen-code', 'copilot-cli', 'antigravity']);

/** The transcripts among a fixture folder's files (the coding agents' homes hold indexes and notes too). */
const TRANSCRIPT_FILES: Partial<Record<FuzzFormat, RegExp>> = {
  codex: /(^|\/)rollout-[^/]*\.jsonl?$/,
  'gemini-cli': /(^|\/)chats\/.*\.jsonl?$/,
  continue: /(^|\/)sessions\/(?!sessions\.json$)[^/]*\.json$/,
  'qwen-code': /(^|\/)chats\/[^/]*\.jsonl$/,
  'copilot-cli': /(^|\/)session-state\/[^/]+\/events\.jsonl$/,
  antigravity: /(^|\/)logs\/transcript(_full)?\.jsonl$/,
};

export type Seed =
  | { shape: 'document'; format: FuzzFormat; name: string; value: unknown }
  | { shape: 'jsonl'; format: FuzzFormat; name: string; lines: unknown[] }
  | { shape: 'text'; format: FuzzFormat; name: string; text: string };

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/import');

const chatgptNode = (id: string, parent: string | null, children: string[], role: string | null, content: unknown, extra: Record<string, unknown> = {}) => ({
  id,
  parent,
  children,
  message: role === null ? null : { id, author: { role, name: null, metadata: {} }, create_time: 1717000000 + children.length, content, status: 'finished_successfully', weight: 1, metadata: {}, recipient: 'all', ...extra },
});

const INLINE: Seed[] = [
  {
    shape: 'document',
    format: 'json',
    name: 'session.json',
    value: {
      session_id: 'fuzz-json-1',
      title: 'Bread',
      messages: [
        { msg_id: 'j1', role: 'user', content: 'How long should dough rise?', timestamp: '2024-05-01T10:00:00Z' },
        { msg_id: 'j2', role: 'assistant', content: 'About an hour, until it doubles.' },
        { role: 'system', content: 'Be brief.' },
        { msgId: 'j4', role: 'tool', content: '[tool result: timer] 60 min', timestamp: '2024-05-01 10:01' },
      ],
    },
  },
  {
    shape: 'document',
    format: 'json',
    name: 'sessions.json',
    value: [
      { sessionId: 'fuzz-json-2', messages: [{ role: 'user', content: 'one' }, { role: 'assistant', content: 'two' }] },
      { session_id: 'fuzz-json-3', source: 'chatgpt', title: null, messages: [{ msg_id: 'x', role: 'user', content: '你好' }] },
    ],
  },
  {
    shape: 'document',
    format: 'chatgpt',
    name: 'conversations.json',
    value: [
      {
        id: 'conv-1',
        title: 'Tree',
        create_time: 1717000000.5,
        current_node: 'a2',
        mapping: {
          root: chatgptNode('root', null, ['sys'], null, null),
          sys: { ...chatgptNode('sys', 'root', ['u1'], 'system', { content_type: 'text', parts: [''] }), weight: 0 },
          u1: chatgptNode('u1', 'sys', ['a1', 'a1b'], 'user', { content_type: 'multimodal_text', parts: ['Look at this', { content_type: 'image_asset_pointer', asset_pointer: 'file-1' }, { content_type: 'audio_transcription', text: 'spoken words' }] }),
          a1b: chatgptNode('a1b', 'u1', [], 'assistant', { content_type: 'text', parts: ['regenerated away'] }),
          a1: chatgptNode('a1', 'u1', ['t1'], 'assistant', { content_type: 'code', text: 'print(1)' }, { recipient: 'python' }),
          t1: { ...chatgptNode('t1', 'a1', ['th'], 'tool', { content_type: 'execution_output', text: '1' }), message: { id: 't1', author: { role: 'tool', name: 'python' }, content: { content_type: 'execution_output', text: '1' } } },
          th: chatgptNode('th', 't1', ['a2'], 'assistant', { content_type: 'thoughts', thoughts: [{ summary: 'Thinking', content: 'about it' }] }),
          a2: chatgptNode('a2', 'th', [], 'assistant', { content_type: 'text', parts: ['It printed 1.'] }),
        },
      },
      {
        conversation_id: 'conv-2',
        title: 'No current node',
        mapping: {
          r: chatgptNode('r', null, ['x'], null, null),
          x: chatgptNode('x', 'r', ['y'], 'user', { content_type: 'text', parts: ['hi'] }),
          y: chatgptNode('y', 'x', [], 'assistant', { content_type: 'tether_browsing_display', result: 'a page' }),
        },
      },
    ],
  },
  {
    shape: 'document',
    format: 'claude',
    name: 'conversations.json',
    value: [
      {
        uuid: 'claude-1',
        name: 'Linear',
        created_at: '2025-03-01T10:00:00Z',
        chat_messages: [
          { uuid: 'c1', sender: 'human', text: 'Summarise', content: [{ type: 'text', text: 'Summarise' }], created_at: '2025-03-01T10:00:01Z', attachments: [{ file_name: 'r.txt', extracted_content: 'Q1 grew' }], files: [{ file_name: 'img.png' }] },
          {
            uuid: 'c2',
            sender: 'assistant',
            text: 'Done',
            content: [
              { type: 'thinking', thinking: 'hmm' },
              { type: 'tool_use', id: 'tu1', name: 'search', input: { q: 'x' } },
              { type: 'tool_result', tool_use_id: 'tu1', content: [{ type: 'text', text: 'result' }] },
              { type: 'text', text: 'Done' },
            ],
          },
        ],
      },
      {
        uuid: 'claude-2',
        name: 'Tree',
        current_leaf_message_uuid: 'd3',
        chat_messages: [
          { uuid: 'd1', parent_message_uuid: '00000000-0000-4000-8000-000000000000', sender: 'human', text: 'Q' },
          { uuid: 'd2', parent_message_uuid: 'd1', sender: 'assistant', text: 'abandoned' },
          { uuid: 'd3', parent_message_uuid: 'd1', sender: 'assistant', text: 'kept' },
        ],
      },
    ],
  },
  {
    shape: 'document',
    format: 'open-webui',
    name: 'chats.json',
    value: [
      {
        id: 'owui-1',
        title: 'Tree chat',
        chat: {
          history: {
            currentId: 'm3',
            messages: {
              m1: { id: 'm1', parentId: null, childrenIds: ['m2', 'm2b'], role: 'user', content: 'Weather?', timestamp: 1718000000 },
              m2b: { id: 'm2b', parentId: 'm1', childrenIds: [], role: 'assistant', content: 'other branch' },
              m2: {
                id: 'm2',
                parentId: 'm1',
                childrenIds: ['m3'],
                role: 'assistant',
                content: '<details type="reasoning" done="true">\n<summary>Thought</summary>\n> thinking\n</details>\n<details type="tool_calls" name="weather" arguments="{&quot;city&quot;:&quot;Paris&quot;}" result="&quot;sunny&quot;">\n</details>\nIt is sunny.',
              },
              m3: { id: 'm3', parentId: 'm2', childrenIds: [], role: 'user', content: 'Thanks', timestamp: 1718000100 },
            },
          },
        },
      },
      { id: 'owui-2', title: 'Old export', chat: { messages: [{ role: 'user', content: 'linear' }, { role: 'assistant', content: 'list' }] } },
    ],
  },
  {
    shape: 'jsonl',
    format: 'openclaw',
    name: '7f3c2a10-0000-4d5e-8f90-a1b2c3d4e5f6.jsonl',
    lines: [
      { type: 'session', version: 3, id: 'oc-1', timestamp: '2026-01-12T09:00:00.000Z', cwd: '/p' },
      { type: 'model_change', id: 'e1', parentId: null, provider: 'x', modelId: 'y' },
      { type: 'message', id: 'e2', parentId: 'e1', timestamp: '2026-01-12T09:00:05.000Z', message: { role: 'user', content: 'List files', timestamp: 1768208405000 } },
      { type: 'message', id: 'e3', parentId: 'e2', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'ls' }, { type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'ls' } }] } },
      { type: 'message', id: 'e4', parentId: 'e3', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: [{ type: 'text', text: 'a.ts' }], isError: false } },
      { type: 'message', id: 'e5', parentId: 'e2', message: { role: 'assistant', content: [{ type: 'text', text: 'abandoned branch' }] } },
      { type: 'message', id: 'e6', parentId: 'e4', message: { role: 'assistant', content: [{ type: 'text', text: 'One file.' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] } },
      { type: 'session_info', id: 'e7', parentId: 'e6', name: 'Files' },
    ],
  },
  {
    shape: 'jsonl',
    format: 'openclaw',
    name: 'v1.jsonl',
    lines: [
      { type: 'session', id: 'oc-v1' },
      { type: 'message', message: { role: 'user', content: 'no ids' } },
      { type: 'message', message: { role: 'assistant', content: 'version 1' } },
    ],
  },
  {
    shape: 'jsonl',
    format: 'sillytavern',
    name: 'Seraphina - 2024-05-01@12h30m15s.jsonl',
    lines: [
      { user_name: 'Ana', character_name: 'Seraphina', create_date: '2024-05-01@12h30m15s', chat_metadata: {} },
      { name: 'Seraphina', is_user: false, is_system: false, send_date: 'May 1, 2024 12:30pm', mes: 'Welcome.', swipe_id: 1, swipes: ['Welcome.', 'Hello!'], extra: {} },
      { name: 'Ana', is_user: true, is_system: false, send_date: 1714566600000, mes: 'Where am I?', extra: { reasoning: 'n/a' } },
      { name: 'Seraphina', is_user: false, is_system: true, send_date: '2024-05-01@12h31m00s', mes: 'A forest.' },
    ],
  },
  {
    shape: 'jsonl',
    format: 'sillytavern',
    name: 'headerless.jsonl',
    lines: [
      { name: 'A', is_user: true, mes: 'hi', send_date: '2024-05-01T10:00:00Z' },
      { name: 'B', is_user: false, mes: 'hello' },
    ],
  },
  {
    shape: 'jsonl',
    format: 'claude-code',
    name: '3b0c6d2e-0000-4a7b-9c8d-1e2f3a4b5c6d.jsonl',
    lines: [
      { type: 'summary', summary: 'Fix a test', leafUuid: 'u4' },
      { parentUuid: null, isSidechain: false, sessionId: 'cc-1', type: 'user', message: { role: 'user', content: 'Fix the test' }, uuid: 'u1', timestamp: '2025-06-01T08:00:01.000Z' },
      { parentUuid: 'u1', sessionId: 'cc-1', type: 'user', isMeta: true, message: { role: 'user', content: 'Caveat' }, uuid: 'u2' },
      { parentUuid: 'u2', sessionId: 'cc-1', type: 'assistant', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'read it' }, { type: 'tool_use', id: 't1', name: 'Read', input: { file: 'a.ts' } }] }, uuid: 'u3' },
      { parentUuid: 'u3', sessionId: 'cc-1', type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'code', is_error: false }] }, uuid: 'u3b' },
      { parentUuid: null, logicalParentUuid: 'u3b', type: 'system', subtype: 'compact_boundary', uuid: 'b1', sessionId: 'cc-1' },
      { parentUuid: 'b1', sessionId: 'cc-1', type: 'user', isCompactSummary: true, message: { role: 'user', content: 'summary of before' }, uuid: 'u3c' },
      { parentUuid: 'u3c', sessionId: 'cc-1', type: 'assistant', isSidechain: true, message: { role: 'assistant', content: 'sidechain' }, uuid: 'side' },
      { parentUuid: 'u3c', sessionId: 'cc-1', type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Fixed.' }, { type: 'image', source: {} }] }, uuid: 'u4', timestamp: '2025-06-01T08:01:00.000Z' },
    ],
  },
  {
    shape: 'text',
    format: 'markdown',
    name: 'notes.md',
    text: '# Trip notes\n\nIntro text.\n\n**User:** Where to?\n\n**Assistant:** Lisbon.\n\n```\nUser: inside a fence\n```\n\n---\n\n### User\n\nAnd food?\n\n### Assistant\n\nPastéis.\n\nSystem: exported\n用户：你好\n助手：不客气。\n',
  },
  { shape: 'text', format: 'markdown', name: 'chat.txt', text: 'User: hi\nAssistant: hello\nHuman: again\n' },
];

function fixtureSeeds(): Seed[] {
  const seeds: Seed[] = [];
  const add = (format: FuzzFormat, folder: string, relative: string) => {
    const file = path.join(FIXTURES, folder, relative);
    // Mutated copies are written into one folder: the seed is named by the file's own name.
    const name = path.basename(relative);
    const text = readFileSync(file, 'utf8');
    if (format === 'markdown') seeds.push({ shape: 'text', format, name, text });
    else if (JSONL_FORMATS.has(format) && !name.endsWith('.json')) {
      const lines = text.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as unknown);
      seeds.push({ shape: 'jsonl', format, name: name.endsWith('.jsonl') ? name : `${name.replace(/\.jsonl.*$/, '')}.jsonl`, lines });
    } else seeds.push({ shape: 'document', format, name, value: JSON.parse(text) as unknown });
  };
  const folders: Array<[FuzzFormat, string]> = [
    ['json', 'json'],
    ['chatgpt', 'chatgpt'],
    ['claude', 'claude'],
    ['open-webui', 'open-webui'],
    ['openclaw', 'openclaw/sessions'],
    ['sillytavern', 'sillytavern'],
    ['claude-code', 'claude-code'],
    ['markdown', 'markdown'],
    // Formats of their own whose files share a fuzzed format's shape: SpecStory's Markdown and WhatsApp's text, DeepSeek's tree.
    ['markdown', 'specstory'],
    ['markdown', 'whatsapp'],
    ['chatgpt', 'deepseek'],
    ['json', 'chat-messages'],
    ['codex', 'codex'],
    ['gemini-cli', 'gemini-cli'],
    ['continue', 'continue'],
    ['qwen-code', 'qwen-code'],
    ['copilot-cli', 'copilot-cli'],
    ['antigravity', 'antigravity'],
  ];
  for (const [format, folder] of folders) {
    // Files in subfolders too (a Claude Code session's subagents/agent-*.jsonl).
    for (const name of readdirSync(path.join(FIXTURES, folder), { recursive: true, encoding: 'utf8' }).sort()) {
      if (name === 'sessions.json' && format === 'openclaw') continue; // OpenClaw's index, not a transcript
      if (format === 'json' && name.endsWith('.jsonl')) continue; // a conversation per line: not one document
      if (statSync(path.join(FIXTURES, folder, name)).isDirectory()) continue;
      const transcripts = TRANSCRIPT_FILES[format];
      if (transcripts && !transcripts.test(name.split(path.sep).join('/'))) continue;
      add(format, folder, name);
    }
  }
  return seeds;
}

let cache: Seed[] | undefined;

export function allSeeds(): Seed[] {
  cache ??= [...INLINE, ...fixtureSeeds()];
  return cache;
}

export function seedsOf(format: FuzzFormat): Seed[] {
  return allSeeds().filter((seed) => seed.format === format);
}
