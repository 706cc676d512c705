import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorOf, fixture, readAll, STREAM_EVERYTHING, tempDir, type ReadResult } from './helpers.js';
import { buildZip } from './write-zip.js';

function writeZip(name: string, entries: Parameters<typeof buildZip>[0]): string {
  const file = path.join(tempDir(), name);
  writeFileSync(file, buildZip(entries));
  return file;
}

function summary(results: ReadResult[]): Array<[string, string]> {
  return results.map((result) => ('error' in result ? [result.file, result.error.message] : [result.file, `${result.format}: ${result.sessions.map((session) => session.sessionId).join(', ')}`]));
}

describe('ZIP archives', () => {
  it('reads conversations.json of a ChatGPT export in place, and nothing else of it', async () => {
    const conversations = readFileSync(fixture('chatgpt', 'conversations.json'));
    const zip = writeZip('chatgpt-export.zip', [
      { name: 'chat.html', data: '<html>…</html>' },
      { name: 'conversations.json', data: conversations },
      { name: 'user.json', data: '{"id":"user-1"}' },
      { name: 'message_feedback.json', data: '[]' },
      { name: 'file-7Qx9-IMG_0042.jpg', data: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), method: 'store' },
    ]);
    const direct = await readAll([fixture('chatgpt', 'conversations.json')]);
    for (const limits of [undefined, STREAM_EVERYTHING]) {
      const results = await readAll([zip], {}, limits);
      expect(results).toHaveLength(1);
      const [result] = results;
      expect(result!.file).toBe(`${zip}/conversations.json`);
      expect(result && 'sessions' in result ? result.sessions : result).toEqual(direct[0] && 'sessions' in direct[0] ? direct[0].sessions : undefined);
    }
  });

  it('reads the shards of a newer ChatGPT export (conversations-000.json...) and none of their neighbours', async () => {
    const conversations = JSON.parse(readFileSync(fixture('chatgpt', 'conversations.json'), 'utf8')) as unknown[];
    const entries = [
      { name: 'chat.html', data: '<html>…</html>' },
      { name: 'conversations-000.json', data: JSON.stringify(conversations.slice(0, 1)) },
      { name: 'conversations-001.json', data: JSON.stringify(conversations.slice(1)) },
      { name: 'export_manifest.json', data: '{"files":["conversations-000.json","conversations-001.json"]}' },
      { name: 'user.json', data: '{"id":"user-1"}' },
      { name: 'user_settings.json', data: '{"user_id":"user-1","settings":{}}' },
    ];
    const zip = writeZip('chatgpt-sharded.zip', entries);
    const direct = await readAll([fixture('chatgpt', 'conversations.json')]);
    const ids = (results: ReadResult[]) => results.flatMap((result) => ('sessions' in result ? result.sessions.map((session) => session.sessionId) : [`error: ${result.error.message}`]));
    const zipped = await readAll([zip]);
    expect(zipped.map((result) => result.file)).toEqual([`${zip}/conversations-000.json`, `${zip}/conversations-001.json`]);
    expect(ids(zipped)).toEqual(ids(direct));

    // The same export unpacked into a folder: the manifest and settings are not read as transcripts.
    const folder = path.join(tempDir(), 'chatgpt-export');
    mkdirSync(folder);
    for (const entry of entries) writeFileSync(path.join(folder, entry.name), entry.data);
    expect(ids(await readAll([folder]))).toEqual(ids(direct));
  });

  it('reads every transcript of an archive of other files, stored or deflated, skipping the rest', async () => {
    const zip = writeZip('mixed.zip', [
      { name: 'notes/kyoto-notes.md', data: readFileSync(fixture('markdown', 'kyoto-notes.md')), method: 'store' },
      { name: 'openclaw/1e2d.jsonl.reset.2026-01-10T08-00-00.000Z', data: readFileSync(fixture('openclaw', 'sessions', '1e2d3c4b-0000-4aaa-8bbb-123456789abc.jsonl.reset.2026-01-10T08-00-00.000Z')) },
      { name: '__MACOSX/notes/._kyoto-notes.md', data: Buffer.from([0, 5, 22, 7, 0, 2, 0, 0]) },
      { name: 'images/', data: '' },
      { name: 'images/photo.png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]) },
      { name: 'broken.json', data: '{"session_id": "x", "messages": [' },
    ]);
    expect(summary(await readAll([zip]))).toEqual([
      [`${zip}/notes/kyoto-notes.md`, 'markdown: markdown:kyoto-notes'],
      [`${zip}/openclaw/1e2d.jsonl.reset.2026-01-10T08-00-00.000Z`, 'openclaw: 1e2d3c4b-0000-4aaa-8bbb-123456789abc'],
      [`${zip}/broken.json`, `${zip}/broken.json: truncated JSON at byte 33`],
    ]);
  });

  it('passes over an entry that holds no message, as a folder does, and reads the rest', async () => {
    const zip = writeZip('claude-projects.zip', [
      // A Claude Code log of a session closed before its first prompt.
      { name: 'projects/app/9d1c2b3a-0000-4000-8000-000000000001.jsonl', data: '{"type":"summary","summary":"New session","leafUuid":"x"}\n' },
      { name: 'projects/app/3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d.jsonl', data: readFileSync(fixture('claude-code', '3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d.jsonl')) },
    ]);
    const results = await readAll([zip]);
    expect(results.map((result) => ('error' in result ? [result.file, result.error.problem, result.passedOver] : [result.file, result.format]))).toEqual([
      [`${zip}/projects/app/9d1c2b3a-0000-4000-8000-000000000001.jsonl`, 'no messages to import', true],
      [`${zip}/projects/app/3b0c6d2e-5f41-4a7b-9c8d-1e2f3a4b5c6d.jsonl`, 'claude-code'],
    ]);
    // The log named on its own is refused.
    const alone = path.join(tempDir(), '9d1c2b3a-0000-4000-8000-000000000001.jsonl');
    writeFileSync(alone, '{"type":"summary","summary":"New session","leafUuid":"x"}\n');
    const [read] = await readAll([alone]);
    expect(read).toMatchObject({ error: { code: 'empty' } });
    expect(read).not.toHaveProperty('passedOver');
  });

  it('finds archives inside folders', async () => {
    const zip = writeZip('export.zip', [{ name: 'conversations.json', data: readFileSync(fixture('claude', 'conversations.json')) }]);
    expect(summary(await readAll([path.dirname(zip)]))).toEqual([[`${zip}/conversations.json`, 'claude: c1a2b3c4-0001-4000-8000-000000000001, c1a2b3c4-0002-4000-8000-000000000002']]);
  });

  it('refuses an entry whose compression ratio no transcript has (a zip bomb)', async () => {
    const zeros = Buffer.alloc(20 * 1024 * 1024, 0x20);
    const zip = writeZip('bomb.zip', [{ name: 'conversations.json', data: zeros }]);
    const error = await errorOf(zip);
    expect(error.code).toBe('zip-bomb');
    expect(error.file).toBe(`${zip}/conversations.json`);
    expect(error.message).toMatch(new RegExp(`^${escape(zip)}/conversations\\.json: refused: ZIP entry compressed \\d+:1, far beyond any transcript \\(limit 100:1\\)$`));
  });

  it('refuses an entry that declares more than the size limit, before inflating it', async () => {
    const zip = writeZip('huge.zip', [{ name: 'conversations.json', data: '[]', declaredSize: 0xffffffff }]);
    const error = await errorOf(zip);
    expect([error.code, error.message]).toEqual(['zip-bomb', `${zip}/conversations.json: refused: ZIP entry declares 4.0 GiB uncompressed, over the limit of 1.0 GiB`]);

    const session = readFileSync(fixture('json', 'session.json'));
    const small = writeZip('small.zip', [{ name: 'session.json', data: session }]);
    const limited = await errorOf(small, undefined, { maxEntryBytes: 100 });
    expect([limited.code, limited.message]).toEqual(['zip-bomb', `${small}/session.json: refused: ZIP entry declares ${session.length} bytes uncompressed, over the limit of 100 bytes`]);
  });

  it('stops an entry that inflates beyond the size it declares', async () => {
    const zip = writeZip('liar.zip', [{ name: 'session.json', data: readFileSync(fixture('json', 'session.json')), declaredSize: 100 }]);
    const error = await errorOf(zip);
    expect([error.code, error.message]).toEqual(['zip-bomb', `${zip}/session.json: refused: ZIP entry inflates beyond the 100 bytes it declares`]);
  });

  it('reports archives it cannot read, archives without transcripts, and archives inside archives', async () => {
    const corrupt = path.join(tempDir(), 'corrupt.zip');
    writeFileSync(corrupt, Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(64, 7)]));
    const corruptError = await errorOf(corrupt);
    expect(corruptError.code).toBe('bad-zip');
    expect(corruptError.message).toMatch(new RegExp(`^${escape(corrupt)}: not a readable ZIP archive \\(.+\\)$`));

    const images = writeZip('images.zip', [{ name: 'a.png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47]) }]);
    expect((await errorOf(images)).message).toBe(`${images}: ZIP archive holds no transcript files`);

    const inner = buildZip([{ name: 'conversations.json', data: '[]' }]);
    const nested = writeZip('nested.zip', [{ name: 'backup.json', data: inner, method: 'store' }]);
    expect((await errorOf(nested)).message).toBe(`${nested}/backup.json: a ZIP archive inside a ZIP archive is not read; unpack the outer one first`);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
