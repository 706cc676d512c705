/**
 * The lint rule that keeps the layers of electron/ in order (eslint.config.js): a lower layer never
 * imports from a higher one, by a static import or an `import()`; imports downward stay allowed.
 */
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { REPO } from './helpers/cli.js';

async function layerErrors(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: REPO });
  const [result] = await eslint.lintText(code, { filePath: `${REPO}/${file}` });
  return result!.messages.filter((m) => /higher layer/.test(m.message)).map((m) => `${m.ruleId}: ${m.message}`);
}

describe('the layering lint rule', () => {
  it('fails the engine importing the sources layer, statically or by import()', async () => {
    const upward = await layerErrors('electron/engine/privacy/upward.ts', "import { sourceTraces } from '../../sources/forgottenSessions.js';\nexport const traces = sourceTraces;\n");
    expect(upward).toEqual([expect.stringMatching(/^no-restricted-imports: .*electron\/engine must not import from a higher layer/)]);
    const dynamic = await layerErrors('electron/engine/upward.ts', "export const load = () => import('../host/memoryHost.js');\n");
    expect(dynamic).toEqual([expect.stringMatching(/^no-restricted-syntax: electron\/engine must not import from a higher layer/)]);
  });

  it('fails the sources importing the app\'s host, and the importers importing the engine', async () => {
    expect(await layerErrors('electron/sources/upward.ts', "export { MemoryHost } from '../host/memoryHost.js';\n")).toHaveLength(1);
    expect(await layerErrors('electron/importers/upward.ts', "import { MemoryEngine } from '../engine/engine.js';\nexport type E = MemoryEngine;\n")).toHaveLength(1);
  });

  it('lets a layer import from the layers below it', async () => {
    expect(await layerErrors('electron/sources/downward.ts', "import type { LocalTraces } from '../engine/engine.js';\nimport { readTranscripts } from '../importers/index.js';\nexport type T = LocalTraces;\nexport const r = readTranscripts;\n")).toEqual([]);
    expect(await layerErrors('electron/cli/downward.ts', "export const load = () => import('../mcp/server.js');\n")).toEqual([]);
  });
});
