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

  it('reads the "## Message N" shape with **You** / **Claude** and their times; the preamble names the session, a code block stays text', async () => {
    const [session] = await sessionsOf(fixture('markdown', 'sourdough-claude-export.md'));
    expect(session).toMatchObject({ sessionId: 'markdown:5d0b7c3e-1f2a-4b6c-9d8e-7a6b5c4d3e2f', title: 'Sourdough starter troubleshooting', source: 'markdown' });
    expect(session!.messages.map((m) => [m.role, m.timestamp])).toEqual([
      ['user', '2025-03-02T09:14:05.000Z'],
      ['assistant', '2025-03-02T09:14:31.000Z'],
      ['user', '2025-03-02T09:20:12.000Z'],
      ['assistant', '2025-03-02T09:20:40.000Z'],
    ]);
    expect(session!.messages[0]!.content).toBe('My starter smells like nail polish remover. Is it dead?');
    // The numbering headings and the preamble are not text; the fenced example is, whole.
    expect(session!.messages.some((m) => /^## Message|Conversation ID|Exported/m.test(m.content.replace(/```markdown[\s\S]*```/, '')))).toBe(false);
    expect(session!.messages[1]!.content).toMatch(/```markdown\n## Message 3\n\*\*You\*\* \(2025-03-02T09:15:00.000Z\)\nthis is only an example inside a code block\n```$/);
  });

  it('reads a time alone under a heading label (Claude Code log exports), with its zone: an offset, Z, or an abbreviation', async () => {
    const [session] = await sessionsOf(fixture('markdown', 'chat-session-export.md'));
    expect(session).toMatchObject({ sessionId: 'markdown:8d1f3c2a-5b7e-4c11-9f0a-2e6d4b8c9a10', title: "write a script that exports this project's chat history to Markdown with timest…" });
    expect(session!.messages).toEqual([
      { role: 'user', content: "write a script that exports this project's chat history to Markdown with timestamps", timestamp: '2026-03-01T22:38:47.000Z' },
      { role: 'assistant', content: "I'll look at how the history is stored first.", timestamp: '2026-03-01T22:38:51.000Z' },
      { role: 'assistant', content: '**Tool: Bash**\n```bash\nls ~/.claude/projects/\n```', timestamp: '2026-07-01T16:05:02.000Z' },
      // A time inside the text stays text; only a line that is nothing but a time, first under the label, is the turn's time.
      { role: 'user', content: '2026-07-01 16:06 is when I ran it; it worked.', timestamp: '2026-07-01T16:06:00.000Z' },
      // A zone nobody knows is not guessed at: the line stays, and the turn has no time.
      { role: 'assistant', content: '*2026-07-01 16:07:10 XYZ*\n\nGood to hear.' },
    ]);
  });

  it("reads Cursor's own chat export (**User** / **Cursor**): the reply is the assistant's, not more of the question", async () => {
    expect(await sessionsOf(fixture('markdown', 'cursor_explain_the_cache_layer.md'))).toEqual([
      {
        sessionId: 'markdown:cursor_explain_the_cache_layer',
        title: 'Explain the cache layer',
        source: 'markdown',
        messages: [
          { role: 'user', content: 'What does `BlockCache::evict` do in @cache.cc?' },
          { role: 'assistant', content: 'It drops the least recently used block once the cache is over its size bound:\n\n```cpp\nvoid BlockCache::evict() {\n  while (bytes_ > limit_) drop(lru_.back());\n}\n```' },
          { role: 'user', content: 'Could it evict a block that a reader still holds?' },
          { role: 'assistant', content: 'No: a reader pins the block, and `drop` skips pinned blocks.' },
        ],
      },
    ]);
  });

  it('reads emoji headings separated by rules, and leaves an indented code block in its turn', async () => {
    const [session] = await sessionsOf(fixture('markdown', 'garden-plan.md'));
    expect(session).toMatchObject({ sessionId: 'markdown:garden-plan', title: 'Planning a balcony garden' });
    expect(session!.messages).toEqual([
      { role: 'user', content: 'Which herbs grow well on a north-facing balcony?' },
      { role: 'assistant', content: "Mint, parsley and chives cope with shade.\n\n    ## 👤 User\n    (an indented code block: still the answer's text)" },
      { role: 'user', content: 'And which ones need full sun?' },
      { role: 'assistant', content: 'Basil, rosemary and thyme want at least six hours of sun.' },
    ]);
  });

  it('reads "#### You:" / "#### ChatGPT:" and takes the conversation id from the chat address', async () => {
    const [session] = await sessionsOf(fixture('markdown', 'ChatGPT-Weekend in Lisbon.md'));
    expect(session).toMatchObject({ sessionId: 'markdown:0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9', title: 'Weekend in Lisbon' });
    expect(session!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(session!.messages[1]!.content).toBe('Day 1: the National Tile Museum in the morning, then grilled sardines in Alfama.\n\nDay 2: Belém for pastries, and the Time Out Market for dinner.');
  });

  it('reads indented bold labels; a parenthesis that is not a time is text', async () => {
    const [session] = await sessionsOf(fixture('markdown', 'indented-notes.txt'));
    expect(session).toMatchObject({ sessionId: 'markdown:notes-2025-04-11', title: 'indented-notes' });
    expect(session!.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'What is the boiling point of water at 2000 m?'],
      ['assistant', 'About 93 °C, because the air pressure is lower.'],
      ['user', '(laughs) so pasta takes longer?'],
      ['assistant', 'Yes, a minute or two more.'],
    ]);
  });

  it('ends a code block only where Markdown ends it: a diff of a README with "  ```bash" in it hides no label', async () => {
    const file = path.join(tempDir(), 'readme-edit.md');
    writeFileSync(
      file,
      '### Human\n\nadd the install command to the README\n\n---\n\n### Assistant\n\n```diff\n  ## Install\n  ```bash\n+ npm install mytool\n```\n\n---\n\n' +
        '### Human\n\nthanks\n\n---\n\n### Assistant\n\nYou are welcome.\n',
    );
    const [session] = await sessionsOf(file);
    expect(session!.messages).toEqual([
      { role: 'user', content: 'add the install command to the README' },
      { role: 'assistant', content: '```diff\n  ## Install\n  ```bash\n+ npm install mytool\n```' },
      { role: 'user', content: 'thanks' },
      { role: 'assistant', content: 'You are welcome.' },
    ]);
  });

  it("reads claude-conversation-extractor's logs: the first prompt as title, the preamble's date, no interruption notes", async () => {
    // In the shape of DrXuQian/claude-conversations (September 2025): the same heading on every file.
    const file = path.join(tempDir(), 'claude-conversation-2025-09-07-0e6ba46b.md');
    writeFileSync(
      file,
      '# Claude Conversation Log\n\nSession ID: 0e6ba46b-b564-4d3c-955a-6e1cae923109\nDate: 2025-09-07 09:22:16\n\n---\n\n' +
        '## 👤 User\n\nWhat does the open file do?\n\n---\n\n## 🤖 Claude\n\nIt runs a split-K GEMM.\n\n---\n\n' +
        '## 👤 User\n\n[Request interrupted by user for tool use]\n\n---\n\n## 👤 User\n\n[Request interrupted by user]\n\n---\n\n' +
        '## 👤 User\n\nand the workspace size?\n\n---\n\n## 🤖 Claude\n\nSixteen partial products.\n',
    );
    const [session] = await sessionsOf(file);
    expect(session).toMatchObject({ sessionId: 'markdown:0e6ba46b-b564-4d3c-955a-6e1cae923109', title: 'What does the open file do?' });
    expect(session!.messages).toEqual([
      { role: 'user', content: 'What does the open file do?', timestamp: '2025-09-07T09:22:16.000Z' },
      { role: 'assistant', content: 'It runs a split-K GEMM.' },
      { role: 'user', content: 'and the workspace size?' },
      { role: 'assistant', content: 'Sixteen partial products.' },
    ]);
  });

  it("reads GitHub Copilot CLI's /share export: its turns dated from the start, the tools' parts, warnings and notes left out", async () => {
    // In the shape of a Copilot CLI 1.0.63 export (June 2026): every part under a rule, its offset and a heading.
    const part = (offset: string, heading: string, body: string) => `---\n\n<sub>⏱️ ${offset}</sub>\n\n### ${heading}\n\n${body}\n\n`;
    const file = path.join(tempDir(), 'copilot-session-7c1d.md');
    writeFileSync(
      file,
      '# 🤖 Copilot CLI Session\n\n> [!NOTE]\n> - **Session ID:** `7c1d5e2a-0000-4000-8000-00000000be45`  \n> - **Started:** 6/18/2026, 12:13:41 PM  \n> - **Duration:** 1m 8s  \n> - **Exported:** 6/18/2026, 12:14:49 PM  \n\n' +
        part('0s', '⚠️ Warning', 'Third-party MCP servers are disabled by your organization.') +
        part('1s', 'ℹ️ Info', 'Disabled tools: bash, glob') +
        part('2s', '👤 User', 'Which beds get the morning sun?') +
        part('5s', '💬 Copilot', 'I will read the garden plan first.') +
        part('6s', '✅ `view`', '**view the file at /home/mira/garden/plan.md.**\n\n```\n1. North bed: shade\n2. East bed: morning sun\n```') +
        part('9s', '❌ `edit`', '**edit the file at /home/mira/garden/plan.md.**\n\n```\nPermission denied\n```') +
        part('1m 8s', '💬 Copilot', '### East bed\n\nThe east bed gets the morning sun.') +
        '---\n',
    );
    const [session] = await sessionsOf(file);
    expect(session).toMatchObject({ sessionId: 'markdown:7c1d5e2a-0000-4000-8000-00000000be45', title: 'Which beds get the morning sun?' });
    expect(session!.messages).toEqual([
      { role: 'user', content: 'Which beds get the morning sun?', timestamp: '2026-06-18T12:13:43.000Z' },
      { role: 'assistant', content: 'I will read the garden plan first.', timestamp: '2026-06-18T12:13:46.000Z' },
      // A heading of the reply's own is part of the reply.
      { role: 'assistant', content: '### East bed\n\nThe east bed gets the morning sun.', timestamp: '2026-06-18T12:14:49.000Z' },
    ]);
  });

  it('dates a conversation by a day alone in its preamble', async () => {
    // As emarion1/claude-conversations writes its summaries with the full conversation under them.
    const file = path.join(tempDir(), 'repo-setup.md');
    writeFileSync(file, '# Conversation: Setting Up a Repository\n\n**Date:** 2025-01-15\n**Duration:** ~10 minutes\n\n## Full Conversation\n\nuser: can i save conversations to git?\n\nassistant: Yes, commit them as Markdown.\n');
    const [session] = await sessionsOf(file);
    expect(session!.messages[0]).toEqual({ role: 'user', content: 'can i save conversations to git?', timestamp: '2025-01-15T00:00:00.000Z' });
  });

  it('prose with words like "model:" or "me:" is not split into turns', async () => {
    const file = path.join(tempDir(), 'specs.md');
    writeFileSync(file, '**User:** which laptop?\n**Assistant:** This one.\nModel: X1\nMe: not a speaker here\n');
    const [session] = await sessionsOf(file);
    expect(session!.messages).toEqual([
      { role: 'user', content: 'which laptop?' },
      { role: 'assistant', content: 'This one.\nModel: X1\nMe: not a speaker here' },
    ]);
  });
});
