import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ImportErrorCode } from '../../electron/importers/index.js';
import { readSessionsFromFile } from '../../electron/importers/index.js';
import { errorOf, fixture, readAll, STREAM_EVERYTHING, tempDir } from './helpers.js';

const FORMATS = 'json, chatgpt, claude, openclaw, open-webui, sillytavern, claude-code, markdown, specstory, grok, deepseek, chat-messages, librechat, ai-studio, gemini, codex, gemini-cli, qwen-code, copilot-cli, antigravity, continue, cline, aider, opencode, cursor, vscode-chat, lmstudio, jan, whatsapp';

function write(name: string, content: string | Buffer): string {
  const file = path.join(tempDir(), name);
  writeFileSync(file, content);
  return file;
}

/** Both reading modes must give the same one-line error naming the file. */
/** The file-level error; `strict` (all or nothing per file) so that a damaged part refuses its file as well. */
async function expectError(file: string, code: ImportErrorCode, problem: string): Promise<void> {
  for (const limits of [undefined, STREAM_EVERYTHING]) {
    const error = await errorOf(file, limits, { strict: true });
    expect(error.code).toBe(code);
    expect(error.file).toBe(file);
    expect(error.message).toBe(`${file}: ${problem}`);
    expect(error.message).not.toMatch(/[\r\n]/);
  }
}

describe('bad input gives one line naming the file and the problem', () => {
  it('truncated JSON', async () => {
    await expectError(fixture('bad', 'truncated-conversations.json'), 'truncated', 'truncated JSON at byte 2500');
  });

  it('a JSON syntax error, with byte, line and column', async () => {
    await expectError(fixture('bad', 'invalid.json'), 'invalid-json', 'invalid JSON at byte 87 (line 5, column 5)');
  });

  it('a syntax error after multi-byte characters counts bytes, not characters', async () => {
    // "你好" is 6 bytes but 2 characters; the stray "x" is at byte 13.
    await expectError(write('cjk.json', '["你好", 1 x]'), 'invalid-json', 'invalid JSON at byte 13 (line 1, column 10)');
  });

  it('UTF-8 with a damaged byte (its other characters are UTF-8) names the offset of the bad byte', async () => {
    const bytes = Buffer.from('User: 你好，东京的天气怎么样？\nAssistant: 很好，晴天。\n');
    bytes[9] = 0xff;
    await expectError(write('notes.txt', bytes), 'not-utf8', 'not UTF-8 text (invalid byte at offset 9)');
  });

  it('a character cut off at the end of the file', async () => {
    const bytes = Buffer.from('User: 你好');
    await expectError(write('cut.txt', bytes.subarray(0, bytes.length - 1)), 'truncated', `truncated in the middle of a UTF-8 character at byte ${bytes.length - 3}`);
  });

  it('binary files', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), Buffer.from('IHDR')]);
    await expectError(write('x.bin', png), 'binary', 'binary file, not a transcript');
    await expectError(write('conversations.json', Buffer.from([0x7b, 0x22, 0x61, 0, 0, 0, 0x22, 0x7d])), 'binary', 'binary file, not a transcript');
    await expectError(write('doc.json', '%PDF-1.7\n%âãÏÓ\n'), 'binary', 'binary file, not a transcript');
  });

  it('empty files', async () => {
    await expectError(fixture('bad', 'empty.json'), 'empty', 'empty file');
    await expectError(fixture('bad', 'whitespace.json'), 'empty', 'empty file (only whitespace)');
    await expectError(write('none.json', '[]'), 'empty', 'no conversations in the file');
    await expectError(write('summary-only.jsonl', '{"type":"summary","summary":"Nothing yet","leafUuid":"x"}\n{"type":"summary","summary":"Still nothing","leafUuid":"y"}\n'), 'empty', 'no messages to import');
  });

  it('unknown formats', async () => {
    await expectError(fixture('bad', 'unknown.json'), 'unknown-format', `unknown format (understood: ${FORMATS})`);
    await expectError(fixture('bad', 'unknown.txt'), 'unknown-format', `unknown format (understood: ${FORMATS})`);
    await expectError(write('numbers.json', '[1, 2, 3]'), 'unknown-format', `unknown format (understood: ${FORMATS})`);
    await expectError(write('lines.jsonl', '{"a":1}\n{"b":2}\n'), 'unknown-format', `unknown format (understood: ${FORMATS})`);
  });

  it('the wrong shape, named by its path', async () => {
    await expectError(fixture('bad', 'wrong-shape.json'), 'wrong-shape', 'messages[3].content must be a non-empty string');
    await expectError(fixture('bad', 'chatgpt-bad-mapping.json'), 'wrong-shape', '[1].mapping.x2.parent "x1" is not in [1].mapping');
    await expectError(
      write('c.json', JSON.stringify([{ id: 'c', current_node: 'n', mapping: { n: { id: 'n', parent: null, message: { id: 'n', content: { content_type: 'text', parts: ['x'] } } } } }])),
      'wrong-shape',
      '[0].mapping.n.message.author must be an object (it is missing)',
    );
    await expectError(write('s.jsonl', '{"type":"session","version":3}\n{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}\n'), 'wrong-shape', 'line 1: id must be a non-empty string (it is missing)');
    await expectError(write('o.jsonl', '{"type":"session","id":"s"}\n{"type":"message","id":"a","parentId":"zz","message":{"role":"user","content":"hi"}}\n'), 'wrong-shape', 'line 2: parentId "zz" is not an entry of this file');
    await expectError(write('st.jsonl', '{"user_name":"A","character_name":"B","create_date":"2024","chat_metadata":{}}\n{"name":"B","is_user":false,"is_system":false,"send_date":1}\n'), 'wrong-shape', 'line 2: mes must be a string (it is missing)');
    await expectError(write('w.jsonl', '{"type":"session","id":"s"}\n[1,2]\n'), 'wrong-shape', 'line 2: must be a JSON object');
  });

  it('a JSONL file cut off in its last line, or broken in the middle', async () => {
    const good = '{"type":"session","id":"s"}\n{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}\n';
    const cut = '{"type":"message","id":"b","parentId":"a","message":{"role":"assis';
    await expectError(write('cut.jsonl', good + cut), 'truncated', `truncated JSON at byte ${Buffer.byteLength(good + cut)} (line 3)`);
    await expectError(write('mid.jsonl', good.replace('"parentId":null', '"parentId":nul') + good.split('\n')[1] + '\n'), 'invalid-json', 'invalid JSON at byte 66 (line 2, column 39)');
  });

  it('paths that cannot be read', async () => {
    const missing = path.join(tempDir(), 'missing.json');
    expect((await readAll([missing])).map((result) => ('error' in result ? [result.error.code, result.error.message] : result))).toEqual([
      ['unreadable', `${missing}: cannot read: no such file or directory`],
    ]);
  });

  it('readSessionsFromFile throws the ImportError', async () => {
    await expect(readSessionsFromFile(fixture('bad', 'wrong-shape.json'))).rejects.toMatchObject({
      name: 'ImportError',
      code: 'wrong-shape',
      file: fixture('bad', 'wrong-shape.json'),
    });
  });

  it('with --strict, a bad file fails before any of its sessions is handed out, and does not stop the next file', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'b'));
    // Many good conversations, then one broken near the end: the streaming reader must still refuse the file.
    const conversation = (id: string) => ({ id, current_node: 'n2', mapping: { n1: { id: 'n1', parent: null, message: { id: 'n1', author: { role: 'user' }, content: { content_type: 'text', parts: ['hi'] } } }, n2: { id: 'n2', parent: 'n1', message: { id: 'n2', author: { role: 'assistant' }, content: { content_type: 'text', parts: ['hello'] } } } } });
    const broken = [...Array.from({ length: 200 }, (_, index) => conversation(`c${index}`)), { id: 'bad', current_node: 'n2', mapping: {} }];
    writeFileSync(path.join(dir, 'a.json'), JSON.stringify(broken));
    writeFileSync(path.join(dir, 'b', 'c.json'), JSON.stringify([conversation('fine')]));

    for (const limits of [undefined, STREAM_EVERYTHING]) {
      const results = await readAll([dir], { strict: true }, limits);
      expect(results.map((result) => ('error' in result ? result.error.message : `${result.file}: ${result.sessionCount} sessions`))).toEqual([
        `${path.join(dir, 'a.json')}: current_node "n2" is not in [200].mapping`,
        `${path.join(dir, 'b', 'c.json')}: 1 sessions`,
      ]);
    }
  });
});
