import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './helpers/cli.js';
import { SLOW_FILES, slowFirst } from './helpers/sequencer.js';

describe('the order test files start in', () => {
  it('names only test files that exist, each once', () => {
    expect(SLOW_FILES.filter((file) => !existsSync(path.join(REPO, file)) || !/\.test\.tsx?$/.test(file))).toEqual([]);
    expect(new Set(SLOW_FILES).size).toBe(SLOW_FILES.length);
  });

  it('starts the slow files first, in the list\'s order, and the others after them in the order given', () => {
    const given = ['test/a.test.ts', 'test/slow2.test.ts', 'test/b.test.ts', 'test/slow1.test.ts', 'test/c.test.ts'];
    const slow = ['test/slow1.test.ts', 'test/slow2.test.ts', 'test/absent.test.ts'];
    expect(slowFirst(given, (file) => file, slow)).toEqual(['test/slow1.test.ts', 'test/slow2.test.ts', 'test/a.test.ts', 'test/b.test.ts', 'test/c.test.ts']);
  });
});
