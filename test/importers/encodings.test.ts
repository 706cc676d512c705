/**
 * Files that are not UTF-8, as people have them: UTF-16 from Windows tools, Chinese notes in
 * GB18030/GBK or Big5, Western notes in Windows-1252. They are read, and the import names the encoding.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fixture, readAll, STREAM_EVERYTHING, tempDir } from './helpers.js';

async function readOne(file: string, limits?: typeof STREAM_EVERYTHING) {
  const [result] = await readAll([file], {}, limits);
  if (!result || 'error' in result) throw new Error(`expected sessions, got ${JSON.stringify(result)}`);
  return result;
}

describe('text in other encodings', () => {
  it('a Chinese note saved as GB18030 is read as Chinese, and the encoding is named', async () => {
    const result = await readOne(fixture('encodings', '月亮-gb18030.txt'));
    expect(result.encoding).toBe('GB18030');
    expect(result.format).toBe('markdown');
    expect(result.sessions[0]!.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', '你好，请写两句关于月亮的诗。'],
      ['assistant', '好的：\n床前明月光，疑是地上霜。'],
      ['user', '谢谢！'],
    ]);
  });

  it('a Traditional Chinese note in Big5', async () => {
    const result = await readOne(fixture('encodings', '月亮-big5.txt'));
    expect(result.encoding).toBe('Big5');
    expect(result.sessions[0]!.messages[0]!.content).toBe('你好，請寫兩句關於月亮的詩。');
  });

  it('UTF-16 with a byte order mark, either byte order, and a JSON export in UTF-16', async () => {
    for (const [name, encoding] of [['paris-utf16le-bom.md', 'UTF-16LE'], ['paris-utf16be-bom.md', 'UTF-16BE']] as const) {
      const result = await readOne(fixture('encodings', name));
      expect(result.encoding).toBe(encoding);
      expect(result.sessions[0]).toMatchObject({ title: 'Paris', messages: [{ role: 'user', content: 'Où manger une crème brûlée ?' }, { role: 'assistant', content: 'Au café du coin, à côté du musée.' }] });
    }
    // Read whole even above the size from which UTF-8 files are streamed.
    const json = await readOne(fixture('encodings', 'export-utf16le.json'), STREAM_EVERYTHING);
    expect([json.format, json.encoding, json.sessions[0]!.sessionId, json.sessions[0]!.messages[0]!.content]).toEqual(['json', 'UTF-16LE', 'utf16-json', 'Wie spät ist es in München?']);
  });

  it('UTF-16 without a byte order mark', async () => {
    const file = path.join(tempDir(), 'no-bom.txt');
    writeFileSync(file, Buffer.from('User: hi\nAssistant: hello\n', 'utf16le'));
    const result = await readOne(file);
    expect(result.encoding).toBe('UTF-16LE');
    expect(result.sessions[0]!.messages.map((m) => m.content)).toEqual(['hi', 'hello']);
  });

  it('a Western note in Windows-1252', async () => {
    const result = await readOne(fixture('encodings', 'paris-windows-1252.txt'));
    expect(result.encoding).toBe('windows-1252');
    expect(result.sessions[0]!.messages.map((m) => m.content)).toEqual(['Où manger une crème brûlée ?', 'Au café du coin, à côté du musée.']);
  });

  it('the same conversation in UTF-8 and in GB18030 is the same session with the same messages', async () => {
    const dir = tempDir();
    const utf8 = path.join(dir, '月亮.txt');
    writeFileSync(utf8, new TextDecoder('gb18030').decode(readFileSync(fixture('encodings', '月亮-gb18030.txt'))));
    const gb = path.join(tempDir(), '月亮.txt');
    writeFileSync(gb, readFileSync(fixture('encodings', '月亮-gb18030.txt')));
    const [a, b] = [await readOne(utf8), await readOne(gb)];
    expect(a.encoding).toBeUndefined();
    expect(b.sessions).toEqual(a.sessions);
  });
});
