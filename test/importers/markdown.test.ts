import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture, sessionsOf, tempDir } from './helpers.js';

describe('Markdown and plain-text transcripts', () => {
  it('reads bold and heading labels, keeps code blocks and continuation lines with their speaker', async () => {
    expect(await sessionsOf(fixture('markdown', 'kyoto-notes.md'))).toEqual([
      {
        sessionId: 'markdown:kyoto-notes',
        title: 'Kyoto notes',
        source: 'markdown',
        messages: [
          { role: 'user', content: 'What should I see in Kyoto?' },
          { role: 'assistant', content: 'Three ideas:\n\n1. Kinkaku-ji\n2. Fushimi Inari\n\n```text\nUser: this line is inside a code block\n```' },
          { role: 'user', content: 'And food?' },
          { role: 'assistant', content: 'Try yudofu.' },
          { role: 'system', content: 'Exported by hand.' },
        ],
      },
    ]);
  });

  it('reads Chinese labels with full-width and ASCII colons', async () => {
    expect(await sessionsOf(fixture('markdown', '对话.txt'))).toEqual([
      {
        sessionId: 'markdown:对话',
        title: '对话',
        source: 'markdown',
        messages: [
          { role: 'user', content: '你好，请写两句关于月亮的诗。' },
          { role: 'assistant', content: '好的：\n床前明月光，\n疑是地上霜。' },
          { role: 'user', content: '谢谢' },
          { role: 'assistant', content: '不客气。' },
          { role: 'user', content: 'Mixed labels work too.' },
        ],
      },
    ]);
  });

  it('derives the session id from the base name only, so the same notes in another folder are the same session', async () => {
    const a = path.join(tempDir(), 'trip.md');
    const b = path.join(tempDir(), 'trip.txt');
    writeFileSync(a, 'User: hi\r\nAssistant: hello\r\n');
    writeFileSync(b, '**User**: hi\n**Assistant**: hello\n');
    const [fromA] = await sessionsOf(a);
    const [fromB] = await sessionsOf(b);
    expect(fromA).toEqual({ sessionId: 'markdown:trip', title: 'trip', source: 'markdown', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] });
    expect(fromB).toEqual(fromA);
  });
});
