import { copyFileSync, appendFileSync, cpSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, readAll, sessionsOf, tempDir, triples } from './helpers.js';

const CURRENT = '7f3c2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6';
const ARCHIVED = '1e2d3c4b-0000-4aaa-8bbb-123456789abc';
const SESSIONS = fixture('openclaw', 'sessions');
const CURRENT_FILE = path.join(SESSIONS, `${CURRENT}.jsonl`);
const ARCHIVED_FILE = path.join(SESSIONS, `${ARCHIVED}.jsonl.reset.2026-01-10T08-00-00.000Z`);

describe('OpenClaw session transcript', () => {
  it('takes the path from the last entry to the root, across branches and compaction', async () => {
    const [session] = await sessionsOf(CURRENT_FILE);
    expect(session!.sessionId).toBe(CURRENT);
    expect(session!.title).toBe('Refactor 重构');
    expect(session!.source).toBe('openclaw');
    expect(session!.messages).toEqual([
      { msgId: `${CURRENT}:a0000003`, role: 'user', content: 'List the files in src', timestamp: '2026-01-12T09:00:05.000Z' },
      { msgId: `${CURRENT}:a0000006`, role: 'assistant', content: 'There are two files: index.ts and util.ts.', timestamp: '2026-01-12T09:00:10.000Z' },
      // "Delete util.ts" and its answer are on the branch the person went back from.
      { msgId: `${CURRENT}:a000000a`, role: 'user', content: 'Rename util.ts to helpers.ts instead', timestamp: '2026-01-12T09:02:05.000Z' },
      // Compacted away for the model, but still in the file and part of the conversation.
      { msgId: `${CURRENT}:a000000b`, role: 'assistant', content: 'Renamed util.ts to helpers.ts.', timestamp: '2026-01-12T09:02:09.000Z' },
      { msgId: `${CURRENT}:a000000f`, role: 'user', content: '谢谢，现在运行测试\n\n[image]', timestamp: '2026-01-12T09:31:00.000Z' },
      { msgId: `${CURRENT}:a0000010`, role: 'assistant', content: 'Tests pass ✅', timestamp: '2026-01-12T09:31:20.000Z' },
    ]);
    const everything = session!.messages.map((message) => message.content).join('\n');
    expect(everything).not.toContain('renamed util.ts to helpers.ts.'); // the compaction summary
    expect(everything).not.toContain('went back'); // the branch summary
  });

  it('includes thinking, tool calls and tool results when asked', async () => {
    const [session] = await sessionsOf(CURRENT_FILE, { include: ['tools', 'thinking'] });
    expect(triples(session).slice(0, 5)).toEqual([
      [`${CURRENT}:a0000003`, 'user', 'List the files in src'],
      [`${CURRENT}:a0000004`, 'assistant', '[thinking] I should run ls on src.'],
      [`${CURRENT}:a0000004#1`, 'tool', '[tool call: bash] {"command":"ls src"}'],
      [`${CURRENT}:a0000005`, 'tool', '[tool result: bash] index.ts\nutil.ts'],
      [`${CURRENT}:a0000006`, 'assistant', 'There are two files: index.ts and util.ts.'],
    ]);
  });

  it('reads an archived session (.jsonl.reset.<timestamp>) under the id in its header', async () => {
    const [session] = await sessionsOf(ARCHIVED_FILE);
    expect(session).toEqual({
      sessionId: ARCHIVED,
      // With no name given to it, a session is titled by the first thing the person said.
      title: 'What does this project do?',
      source: 'openclaw',
      messages: [
        { msgId: `${ARCHIVED}:b0000001`, role: 'user', content: 'What does this project do?', timestamp: '2026-01-09T20:00:10.000Z' },
        { msgId: `${ARCHIVED}:b0000002`, role: 'assistant', content: 'It keeps long-term memory of conversations.', timestamp: '2026-01-09T20:00:15.000Z' },
      ],
    });
  });

  it('reads a whole sessions folder: current and archived sessions, not the index nor the runs\' traces', async () => {
    const folder = path.join(tempDir(), 'sessions');
    cpSync(SESSIONS, folder, { recursive: true });
    // OpenClaw 2026.5 writes a trace of each session's runs beside its transcript.
    writeFileSync(
      path.join(folder, `${CURRENT}.trajectory.jsonl`),
      [
        { traceSchema: 'openclaw-trajectory', schemaVersion: 1, traceId: CURRENT, source: 'runtime', type: 'session.started', ts: '2026-01-10T09:00:00.000Z', seq: 1, sessionId: CURRENT },
        { traceSchema: 'openclaw-trajectory', schemaVersion: 1, traceId: CURRENT, source: 'runtime', type: 'prompt.submitted', ts: '2026-01-10T09:00:01.000Z', seq: 2, sessionId: CURRENT, data: { prompt: 'What does this project do?' } },
      ]
        .map((entry) => JSON.stringify(entry))
        .join('\n') + '\n',
    );
    const results = await readAll([folder]);
    expect(results.map((result) => ('error' in result ? result.error.message : [path.basename(result.file), result.format, result.sessions[0]!.sessionId]))).toEqual([
      [path.basename(ARCHIVED_FILE), 'openclaw', ARCHIVED],
      [`${CURRENT}.jsonl`, 'openclaw', CURRENT],
    ]);
  });

  it('keeps earlier ids when the session grows (the file is append-only)', async () => {
    const dir = tempDir();
    const file = path.join(dir, `${CURRENT}.jsonl`);
    copyFileSync(CURRENT_FILE, file);
    const [before] = await sessionsOf(file);
    appendFileSync(
      file,
      [
        { type: 'message', id: 'a0000012', parentId: 'a0000011', timestamp: '2026-01-12T10:00:00.000Z', message: { role: 'user', content: 'Commit it', timestamp: 1768212000000 } },
        { type: 'message', id: 'a0000013', parentId: 'a0000012', timestamp: '2026-01-12T10:00:04.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'Committed.' }], stopReason: 'stop', timestamp: 1768212004000 } },
      ]
        .map((entry) => JSON.stringify(entry) + '\n')
        .join(''),
    );
    const [after] = await sessionsOf(file);
    expect(after!.messages.slice(0, before!.messages.length)).toEqual(before!.messages);
    expect(triples(after).slice(before!.messages.length)).toEqual([
      [`${CURRENT}:a0000012`, 'user', 'Commit it'],
      [`${CURRENT}:a0000013`, 'assistant', 'Committed.'],
    ]);
  });

  it('reads version 1 files, which have no entry ids, in line order', async () => {
    const file = path.join(tempDir(), 'old.jsonl');
    writeFileSync(
      file,
      [
        { type: 'session', id: 'v1-session', timestamp: '2025-01-01T00:00:00.000Z', cwd: '/' },
        { type: 'message', timestamp: '2025-01-01T00:00:01.000Z', message: { role: 'user', content: 'hi', timestamp: 1735689601000 } },
        { type: 'message', timestamp: '2025-01-01T00:00:02.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'hello' }], timestamp: 1735689602000 } },
      ]
        .map((entry) => JSON.stringify(entry))
        .join('\n'),
    );
    const [session] = await sessionsOf(file);
    expect(triples(session)).toEqual([
      ['v1-session:L2', 'user', 'hi'],
      ['v1-session:L3', 'assistant', 'hello'],
    ]);
  });

  it("keeps a chat channel's message as the person's words, without OpenClaw's context blocks, and names who sent it", async () => {
    const file = path.join(tempDir(), '5a6b7c8d-0000-4000-8000-00000000c4a7.jsonl');
    const block = (heading: string, value: object) => `${heading}\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\`\n\n`;
    const inbound = (text: string, sender?: string) =>
      block('Conversation info (untrusted metadata):', { conversation_label: 'garden club id:-100200', group_subject: 'garden club', was_mentioned: true }) +
      (sender === undefined ? '' : block('Sender (untrusted metadata):', { label: `${sender} (4411)`, id: '4411', name: sender })) +
      text;
    const message = (id: string, parentId: string | null, second: number, role: string, text: string) => ({
      type: 'message',
      id,
      parentId,
      timestamp: `2026-02-12T08:00:0${second}.000Z`,
      message: { role, content: [{ type: 'text', text }], timestamp: 1770883200000 + second * 1000 },
    });
    writeFileSync(
      file,
      [
        { type: 'session', version: 3, id: '5a6b7c8d-0000-4000-8000-00000000c4a7', timestamp: '2026-02-12T08:00:00.000Z', cwd: '/srv/claw' },
        message('u1', null, 1, 'user', inbound('@garden_bot when do we sow the beans?', 'Mira Holt')),
        message('a1', 'u1', 2, 'assistant', 'After the last frost, Mira: mid May.'),
        message('u2', 'a1', 3, 'user', inbound('and the peas?')),
        message('a2', 'u2', 4, 'assistant', 'Peas can go in now.'),
      ]
        .map((entry) => JSON.stringify(entry))
        .join('\n') + '\n',
    );
    const [session] = await sessionsOf(file);
    expect(session!.title).toBe('@garden_bot when do we sow the beans?');
    expect(session!.messages.map((m) => [m.role, m.speaker, m.content])).toEqual([
      ['user', 'Mira Holt', '@garden_bot when do we sow the beans?'],
      ['assistant', undefined, 'After the last frost, Mira: mid May.'],
      ['user', undefined, 'and the peas?'],
      ['assistant', undefined, 'Peas can go in now.'],
    ]);
  });

  it("leaves out OpenClaw's own turns (heartbeat, memory flush, /new greeting, restart report) and reads a picture as [image]", async () => {
    const file = path.join(tempDir(), '5a6b7c8d-0000-4000-8000-0000000b0a75.jsonl');
    let parent: string | null = null;
    let second = 0;
    const turn = (role: string, text: string, extra: object = {}) => {
      second += 1;
      const id = `e${second}`;
      const entry = { type: 'message', id, parentId: parent, timestamp: `2026-02-14T09:00:${String(second).padStart(2, '0')}.000Z`, message: { role, content: [{ type: 'text', text }], ...extra } };
      parent = id;
      return entry;
    };
    const entries = [
      turn('assistant', '✅ New session started · model: kimi-coding/k2p5', { provider: 'openclaw', model: 'delivery-mirror' }),
      turn('user', 'A new session was started via /new or /reset. Greet the user in your configured persona, if one is provided.'),
      turn('assistant', 'Hello again! What shall we plant?'),
      turn('user', 'Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. If nothing needs attention, reply HEARTBEAT_OK.\nCurrent time: Saturday, February 14th, 2026 — 9:00 AM (UTC)'),
      turn('assistant', 'HEARTBEAT_OK'),
      turn('user', '[media attached: /srv/claw/media/inbound/bed---1a2b.jpg (image/jpeg) | /srv/claw/media/inbound/bed---1a2b.jpg]\nTo send an image back, prefer the message tool (media/path/filePath). Keep caption in the text body.\nis this bed too shady for beans?'),
      turn('assistant', 'A little: beans want six hours of sun.'),
      // Typed in OpenClaw's web chat: the envelope says when.
      turn('user', '[Sat 2026-02-14 09:01 UTC] then the peas go there'),
      turn('assistant', 'Peas are fine with half shade.'),
      turn('user', '[OpenClaw heartbeat poll]'),
      turn('assistant', 'HEARTBEAT_OK'),
      turn('user', '[Inter-session message] sourceSession=agent:main:subagent:77aa sourceChannel=webchat sourceTool=subagent_announce isUser=false\nThis content was routed by OpenClaw from another session.\n<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nThe sub-agent found three bean varieties.\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>'),
      turn('assistant', 'I found three bean varieties for that bed.'),
      turn('user', 'Pre-compaction memory flush. Store durable memories now (use memory/YYYY-MM-DD.md). If nothing to store, reply with NO_REPLY.'),
      turn('assistant', 'NO_REPLY'),
      turn('user', 'GatewayRestart:\n{\n  "kind": "restart",\n  "status": "ok"\n}'),
    ];
    writeFileSync(file, [{ type: 'session', version: 3, id: '5a6b7c8d-0000-4000-8000-0000000b0a75', timestamp: '2026-02-14T09:00:00.000Z', cwd: '/srv/claw' }, ...entries].map((entry) => JSON.stringify(entry)).join('\n') + '\n');
    const [session] = await sessionsOf(file);
    expect(session!.title).toBe('[image]');
    expect(session!.messages.map((m) => [m.role, m.content])).toEqual([
      ['assistant', 'Hello again! What shall we plant?'],
      ['user', '[image]\nis this bed too shady for beans?'],
      ['assistant', 'A little: beans want six hours of sun.'],
      ['user', 'then the peas go there'],
      ['assistant', 'Peas are fine with half shade.'],
      ['assistant', 'I found three bean varieties for that bed.'],
    ]);
    const [withTools] = await sessionsOf(file, { include: ['tools'] });
    expect(withTools!.messages).toHaveLength(entries.length);
  });
});
