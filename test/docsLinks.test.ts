/**
 * The README and docs/ lead where they say: every relative link reaches a file of the repository, and
 * every `#anchor` a heading of the file it names. The README stays a five-minute read.
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO } from './helpers/cli.js';
import { brokenLinks, headingIds, linksOf } from './helpers/markdownLinks.js';

const README = path.join(REPO, 'README.md');
const docs = () => readdirSync(path.join(REPO, 'docs')).filter((name) => name.endsWith('.md')).map((name) => path.join(REPO, 'docs', name));

describe('documentation links', () => {
  it('every relative link of README.md and docs/*.md resolves, anchors included', () => {
    const files = [README, ...docs()];
    expect(files.length).toBeGreaterThan(5);
    // The check reads real links: the README links into docs/ and docs/ back (a parser that found none would pass anything).
    expect(linksOf(readFileSync(README, 'utf8'), README).some((l) => l.target.startsWith('docs/'))).toBe(true);
    const broken = brokenLinks(files).map((l) => `${path.relative(REPO, l.file)}:${l.line}: ${l.target}: ${l.problem}`);
    expect(broken).toEqual([]);
  });

  it('the README is at most 250 lines', () => {
    expect(readFileSync(README, 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });
});

describe('the link check', () => {
  const folder = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sm-links-'));
    mkdirSync(path.join(dir, 'docs'));
    writeFileSync(path.join(dir, 'docs', 'guide.md'), '# Guide\n\n## Connect an assistant (MCP)\n\n## One session: `npm run bench`\n\n## Notes\n\n## Notes\n\n## Coding assistants\' logs\n');
    writeFileSync(path.join(dir, 'code.ts'), '');
    return dir;
  };

  it('finds a link to a missing file, to a missing heading, and an anchor into a file that is not Markdown', () => {
    const dir = folder();
    const readme = path.join(dir, 'README.md');
    writeFileSync(readme, [
      '# Title',
      'See [the guide](docs/guid.md) and [its part](docs/guide.md#connect-an-assistant).',
      '![shot](docs/screenshots/none.png)',
      '[code](code.ts#L3) and [here](#no-such-heading).',
      '[ref]: docs/missing.md',
    ].join('\n'));
    const problems = brokenLinks([readme]).map((l) => [l.line, l.target]);
    expect(problems).toEqual([
      [2, 'docs/guid.md'],
      [2, 'docs/guide.md#connect-an-assistant'],
      [3, 'docs/screenshots/none.png'],
      [4, 'code.ts#L3'],
      [4, '#no-such-heading'],
      [5, 'docs/missing.md'],
    ]);
  });

  it('accepts what GitHub resolves: headings with punctuation and code, repeated headings, links back up, URLs, and ignores code', () => {
    const dir = folder();
    const page = path.join(dir, 'docs', 'page.md');
    writeFileSync(page, [
      '# Page',
      '[a](guide.md#connect-an-assistant-mcp) [b](guide.md#one-session-npm-run-bench) [c](guide.md#notes-1)',
      '[d](guide.md#coding-assistants-logs) [e](../code.ts) [f](../docs/) [g](#page) [h](https://example.com/x#y)',
      '`[not a link](nowhere.md)`',
      '```',
      '[not a link either](nowhere.md)',
      '```',
      '<!-- [nor this](nowhere.md) -->',
    ].join('\n'));
    expect(brokenLinks([page])).toEqual([]);
    expect(headingIds(readFileSync(path.join(dir, 'docs', 'guide.md'), 'utf8'))).toEqual(
      new Set(['guide', 'connect-an-assistant-mcp', 'one-session-npm-run-bench', 'notes', 'notes-1', 'coding-assistants-logs']),
    );
  });
});
