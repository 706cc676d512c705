import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mapSpecStory } from '../../electron/importers/exports/specstory.js';
import { detectFormat } from '../../electron/importers/index.js';
import { fixture, readAll, sessionsOf, tempDir } from './helpers.js';

const CLAUDE_CODE = fixture('specstory', '2026-03-31_23-32-39Z-orchestrator-flow.md');
const CURSOR = fixture('specstory', '2025-03-06_10-44-12-Sqlite-WAL-question.md');
/** In the shape of SpecStory's histories for Cursor of spring 2025 (edobry/minsky, .specstory/history). */
const CURSOR_2025 = fixture('specstory', '2025-04-27_20-17-readme-init-section.md');

describe('SpecStory histories (.specstory/history/*.md)', () => {
  it('reads a Claude Code history: times with their zones, the session of the header, no reasoning, tool calls or sub-agent turns', async () => {
    const [session] = await sessionsOf(CLAUDE_CODE);
    expect(session).toMatchObject({
      sessionId: 'specstory:300ecbd9-654b-467b-9607-7c75e11e79ea',
      // The heading is only a time: the title is what the person asked.
      title: 'The orchestrator flow stops after the second step. Can you find out why?',
      source: 'specstory',
    });
    expect(session!.messages).toEqual([
      { role: 'user', content: 'The orchestrator flow stops after the second step. Can you find out why?', timestamp: '2026-03-31T23:32:39.000Z' },
      {
        role: 'assistant',
        content: 'The runner slices the steps to the first two (`steps[:2]`), so the third never runs.\n\n```python\n_**User**_ stays text inside a code block\n```',
        timestamp: '2026-03-31T23:32:44.000Z',
      },
      { role: 'assistant', content: 'I removed the slice; all five steps run now.', timestamp: '2026-03-31T23:33:02.000Z' },
      { role: 'user', content: 'thanks, it works', timestamp: '2026-03-31T23:34:00.000Z' },
    ]);
  });

  it('keeps the reasoning and the tool calls when asked for', async () => {
    const [session] = await sessionsOf(CLAUDE_CODE, { include: ['tools', 'thinking'] });
    const reply = session!.messages[1]!.content;
    expect(reply).toContain('I should read the runner first.');
    expect(reply).toContain('Tool use: **Read**');
    expect(reply).toContain('for step in steps[:2]:');
    // Still no sub-agent turn: it is a conversation of its own.
    expect(session!.messages.some((message) => message.content.includes('Sub-agent: searching'))).toBe(false);
  });

  it('reads an older Cursor history: bare labels, the title without its time, a search block left out', async () => {
    const [session] = await sessionsOf(CURSOR);
    expect(session).toEqual({
      sessionId: 'specstory:2025-03-06_10-44-12-Sqlite-WAL-question',
      title: 'Why is my SQLite database locked',
      source: 'specstory',
      messages: [
        // The labels have no time: the heading's is the first message's.
        { role: 'user', content: 'Why does my SQLite database say "database is locked" when two scripts write?', timestamp: '2025-03-06T10:44:12.000Z' },
        { role: 'assistant', content: 'Two writers contend for one lock. Turn on WAL mode with `PRAGMA journal_mode=WAL;` and set a busy timeout.' },
        { role: 'user', content: 'Does WAL work on a network drive?' },
        { role: 'assistant', content: 'No: WAL needs shared memory, which network file systems do not offer.' },
      ],
    });
  });

  it('reads a spring 2025 Cursor history: the code blocks as Markdown ends them, its tool parts left out, its time in UTC', async () => {
    const [session] = await sessionsOf(CURSOR_2025);
    expect(session!.messages).toEqual([
      // The heading's time is the writer's clock (16:17:16); the file's name has the same moment in UTC.
      { role: 'user', content: 'add a section on the `init` command to the README', timestamp: '2025-04-27T20:17:16.000Z' },
      // Left out: `Read file: …`, the fetched rule, the edit's diff (whose "  ```bash" line closes
      // nothing), the terminal command with its output.
      { role: 'assistant', content: "I'll read the README first.\n\nI added `mytool init` to the commands section of the README." },
      { role: 'user', content: 'now run the tests' },
      // The reply that was only `Cancelled` is no message.
      { role: 'user', content: 'why did that stop?' },
      // Its code block is never closed: the label after the rule still starts the next turn.
      { role: 'assistant', content: 'The test run was cancelled before it started. Here is the command to run yourself:\n\n```text\nbun test' },
      { role: 'user', content: 'ok, thanks' },
    ]);
    const [withTools] = await sessionsOf(CURSOR_2025, { include: ['tools'] });
    const reply = withTools!.messages[1]!.content;
    expect(reply).toContain('Read file: README.md');
    expect(reply).toContain('### Rule: docs-style');
    expect(reply).toContain('+ mytool init');
    expect(reply).toContain('Usage: mytool init [dir]');
    expect(withTools!.messages[3]).toEqual({ role: 'assistant', content: 'Cancelled' });
  });

  it('dates a history whose labels have no time by its heading: in UTC when it says so, else by the file name', () => {
    const turns = '_**User**_\n\nrun the benchmark\n\n---\n\n_**Assistant (default)**_\n\nStarted.\n\n---\n';
    const zoned = mapSpecStory(`<!-- Generated by SpecStory -->\n\n# Run the benchmark (2025-10-15 00:14Z)\n\n${turns}`, '2025-10-15_00-14Z-run-the-benchmark.md');
    expect(zoned.messages.map((message) => message.timestamp)).toEqual(['2025-10-15T00:14:00.000Z', undefined]);
    // Written in India (UTC+05:30), named in UTC.
    const local = mapSpecStory(`# Run the benchmark (2025-04-28 09:05:30)\n\n${turns}`, '2025-04-28_03-35-run-the-benchmark.md');
    expect(local.messages[0]!.timestamp).toBe('2025-04-28T03:35:30.000Z');
    // A name that is no time of the same moment: the heading's time is read as UTC.
    const renamed = mapSpecStory(`# Run the benchmark (2025-04-28 09:05:30)\n\n${turns}`, 'benchmark.md');
    expect(renamed.messages[0]!.timestamp).toBe('2025-04-28T09:05:30.000Z');
  });

  it('leaves out the empty code blocks a Copilot history writes for the edits it could not read', () => {
    const session = mapSpecStory(
      "<!-- Generated by SpecStory -->\n\n# Add logs (2025-05-27 12:22:07)\n\n_**User**_\n\nadd logs to the scripts\n\n---\n\n_**Assistant**_\n\nI will add them now.\n````\n\n````\n\n````\n\n````\nThe logs are in all three scripts:\n\n```js\nconsole.log('[toc] start');\n```\n\n---\n",
      '2025-05-27-add-logs.md',
    );
    expect(session.messages[1]).toEqual({ role: 'assistant', content: "I will add them now.\n\nThe logs are in all three scripts:\n\n```js\nconsole.log('[toc] start');\n```" });
  });

  it("leaves out the commands a person gave Claude Code itself, answered under a ⎿ (SpecStory 2.0 for Claude Code)", async () => {
    // In the shape of ChrisGVE/MunsellSpace's .specstory/history (December 2025): bare labels, the time only in the heading.
    const text = "<!-- Generated by SpecStory, Markdown v2.0.0 -->\n\n# 2025-12-22 19:13:17Z\n\n<!-- Claude Code Session 9309e5e5-5bc9-49b4-bd90-db38aefb434f (2025-12-22_19-13-17Z) -->\n\n_**User**_\n\n/plugin\n ⎿  ✓ Enabled 1 plugin. Restart Claude Code to apply changes.\n\n_**User**_\n\nwhich plugins are on now?\n\n---\n\n_**Agent (claude-opus-4-5-20251101)**_\n\nOnly the formatter plugin is enabled.\n\n_**User**_\n\n/exit\n ⎿  See ya!\n";
    expect(mapSpecStory(text, '2025-12-22_19-13-17Z.md').messages).toEqual([
      { role: 'user', content: 'which plugins are on now?', timestamp: '2025-12-22T19:13:17.000Z' },
      { role: 'assistant', content: 'Only the formatter plugin is enabled.' },
    ]);
    expect(mapSpecStory(text, '2025-12-22_19-13-17Z.md', new Set(['tools'])).messages.map((message) => message.content)).toEqual([
      '/plugin\n ⎿  ✓ Enabled 1 plugin. Restart Claude Code to apply changes.',
      'which plugins are on now?',
      'Only the formatter plugin is enabled.',
      '/exit\n ⎿  See ya!',
    ]);
  });

  it("does not take the labels of a history that a tool's output quotes for turns (a newer export's <tool-use>)", () => {
    // As in onotakuy/work20260104_01: the agent ran `cat` on the very history being written, its output cut off mid-block.
    const text = "<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n<!-- cursor Session 17d2aa8a-d529-4cff-9a80-bc7697c468ad (2026-01-03 14:51Z) -->\n\n# Push the history (2026-01-03 14:51Z)\n\n_**User (2026-01-03 14:51Z)**_\n\npush .specstory as it is\n\n---\n\n_**Agent (model default, mode Agent)**_\n\nI'll look at the file first.\n\n<tool-use data-tool-type=\"shell\" data-tool-name=\"run_terminal_cmd\">\n<details><summary>Tool use: **run_terminal_cmd** • Run command: cat .specstory/history/a.md</summary>\n\n```bash\ncat .specstory/history/a.md | head -12\n```\n\n```\n&lt;!-- Generated by SpecStory, Markdown v2.1.0 --&gt;\n\n_**User (2026-01-03 14:51Z)**_\n\npush .specstory as it is\n\n---\n\n_**Agent (model default, mode Agent)**_\n\n</details></tool-use>\n\n---\n\nIt is committed and pushed.\n\n---\n\n_**User (2026-01-03 15:02Z)**_\n\nthanks\n\n---\n";
    expect(mapSpecStory(text, '2026-01-03_14-51Z-push.md').messages).toEqual([
      { role: 'user', content: 'push .specstory as it is', timestamp: '2026-01-03T14:51:00.000Z' },
      { role: 'assistant', content: "I'll look at the file first.\n\nIt is committed and pushed." },
      { role: 'user', content: 'thanks', timestamp: '2026-01-03T15:02:00.000Z' },
    ]);
  });

  it("leaves out the status a newer export writes beside a failed tool call (File not found, Cancelled)", () => {
    // As in CS485-Harmony/Harmony's history (SpecStory 2.1.0 for Cursor, March 2026) and onotakuy/work20260104_01's.
    const text = "<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n# 2026-03-25 15:55:48Z\n\n<!-- cursoride Session af808bb1-b32a-4dea-a83a-19913af8995c (2026-03-25 15:55:48Z) -->\n\n_**User**_\n\nadd failing tests for the pin button\n\n---\n\n_**Agent (composer-2-fast)**_\n\nLooking for the pin code first.\n\n_**Agent (composer-2-fast)**_\n\nFile not found\n\n<tool-use data-tool-type=\"read\" data-tool-name=\"read_file_v2\"><details>\n<summary>Tool use: **read_file_v2**</summary>\n\n</details></tool-use>\n\n_**Agent (composer-2-fast)**_\n\nModel provided invalid arguments to mcp tool.\n\n_**Agent (composer-2-fast)**_\n\nCancelled\n\n_**Agent (composer-2-fast)**_\n\nThe tests are in `HarmonyShell.test.tsx`; they fail until `canPin` checks the role.\n\n---\n";
    expect(mapSpecStory(text, '2026-03-25_15-55-48Z-pinning.md').messages.map((message) => message.content)).toEqual([
      'add failing tests for the pin button',
      'Looking for the pin code first.',
      'The tests are in `HarmonyShell.test.tsx`; they fail until `canPin` checks the role.',
    ]);
    expect(mapSpecStory(text, '2026-03-25_15-55-48Z-pinning.md', new Set(['tools'])).messages.map((message) => message.content)).toContain('Cancelled');
  });

  it('is told apart from other Markdown by its labels, with or without the generator comment', () => {
    expect(detectFormat(readFileSync(CLAUDE_CODE))).toBe('specstory');
    expect(detectFormat(readFileSync(CURSOR, 'utf8').replace(/<!-- Generated by SpecStory -->\n/, ''))).toBe('specstory');
    expect(detectFormat('**User**: hi\n**Assistant**: hello\n')).toBe('markdown');
  });

  it('a folder of histories imports each file as a session of its own', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'a.md'), readFileSync(CLAUDE_CODE));
    writeFileSync(path.join(dir, 'b.md'), readFileSync(CURSOR));
    const results = await readAll([dir]);
    expect(results.map((result) => ('error' in result ? result.error.problem : `${result.format} ${result.sessions[0]?.messages.length}`)).sort()).toEqual(['specstory 4', 'specstory 4']);
  });
});
