import { appendFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTranscriptsWithLimits } from '../../electron/importers/read.js';
import { errorOf, readAll, STREAM_EVERYTHING, tempDir } from './helpers.js';

/** A ChatGPT conversation with a regenerated answer; `text` goes into the user's message. */
function conversation(id: string, text: string): object {
  const message = (nodeId: string, role: string, content: string) => ({ id: nodeId, author: { role }, create_time: 1717000000, content: { content_type: 'text', parts: [content] } });
  return {
    id,
    title: `Conversation ${id}`,
    current_node: `${id}-a`,
    mapping: {
      [`${id}-u`]: { id: `${id}-u`, parent: null, children: [`${id}-old`, `${id}-a`], message: message(`${id}-u`, 'user', text) },
      [`${id}-old`]: { id: `${id}-old`, parent: `${id}-u`, children: [], message: message(`${id}-old`, 'assistant', 'regenerated away') },
      [`${id}-a`]: { id: `${id}-a`, parent: `${id}-u`, children: [], message: message(`${id}-a`, 'assistant', 'answer') },
    },
  };
}

/** A conversations.json of `count` conversations of about `textBytes` each, spanning many read chunks. */
function writeExport(file: string, count: number, textBytes: number): void {
  const conversations = Array.from({ length: count }, (_, index) => conversation(`c${index}`, `${'文'.repeat(textBytes / 3)}`));
  writeFileSync(file, JSON.stringify(conversations));
}

describe('large files, streamed in two passes', () => {
  it('hands out every conversation of a multi-megabyte export, the same as reading it whole', async () => {
    const file = path.join(tempDir(), 'conversations.json');
    writeExport(file, 60, 60_000); // ~3.6 MB: dozens of read chunks
    const streamed = await readAll([file], {}, STREAM_EVERYTHING);
    const whole = await readAll([file]);
    expect(streamed).toEqual(whole);
    const [result] = streamed;
    expect(result && 'sessions' in result ? [result.sessionCount, result.sessions.length, result.sessions[59]!.messages.map((message) => message.msgId)] : result).toEqual([60, 60, ['c59-u', 'c59-a']]);
  });

  it('finds the exact offset of a bad byte several chunks in, and accepts characters split across chunks', async () => {
    const file = path.join(tempDir(), 'conversations.json');
    // 3-byte characters over 3 MB: most chunk boundaries fall inside a character.
    writeExport(file, 50, 60_000);
    expect(await readAll([file], {}, STREAM_EVERYTHING)).toHaveLength(1);

    const bytes = Buffer.from(JSON.stringify([conversation('a', '文'.repeat(1_200_000)), conversation('b', 'x')]));
    const offset = bytes.indexOf('"x"') + 1;
    bytes[offset] = 0xff;
    writeFileSync(file, bytes);
    const error = await errorOf(file, STREAM_EVERYTHING);
    expect([error.code, error.message]).toEqual(['not-utf8', `${file}: not UTF-8 text (invalid byte at offset ${offset})`]);
  });

  it('fails the second pass rather than hand out sessions of a file that changed after it was checked', async () => {
    const file = path.join(tempDir(), 'conversations.json');
    writeExport(file, 3, 300);
    const results = readTranscriptsWithLimits([file], {}, STREAM_EVERYTHING)[Symbol.asyncIterator]();
    const { value: result } = await results.next();
    if (!result || !('sessions' in result)) throw new Error('expected a readable file');

    appendFileSync(file, ' ');
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    const sessions = result.sessions[Symbol.asyncIterator]();
    await expect(sessions.next()).rejects.toMatchObject({ code: 'changed', message: `${file}: file changed while it was being imported; import it again` });
  });

  it('can iterate the sessions of a streamed file again', async () => {
    const file = path.join(tempDir(), 'conversations.json');
    writeExport(file, 5, 300);
    for await (const result of readTranscriptsWithLimits([file], {}, STREAM_EVERYTHING)) {
      if (!('sessions' in result)) throw result.error;
      const first: string[] = [];
      for await (const session of result.sessions) first.push(session.sessionId);
      const second: string[] = [];
      for await (const session of result.sessions) second.push(session.sessionId);
      expect(second).toEqual(first);
      expect(first).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    }
  });
});
