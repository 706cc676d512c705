import { describe, expect, it } from 'vitest';
import { IMPORT_FORMATS } from '../../electron/importers/read-types.js';
import { SOURCE_NAMES } from '../../renderer/src/format.js';

describe('source names in the app', () => {
  it('every format the importers read, and every tool of the Cline family, is shown by its product name', () => {
    const sources = [...IMPORT_FORMATS, 'roo-code', 'kilo-code'];
    expect(sources.filter((source) => SOURCE_NAMES[source] === undefined)).toEqual([]);
  });
});
