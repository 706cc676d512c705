// Reads the transcripts under the paths given and prints them, with the SQLite backend used and the
// format each database file is recognised as from its bytes, as JSON. Run by
// test/importers/sqlite-backends.test.ts in another Node than the test's.
import { readFileSync, statSync } from 'node:fs';
import { detectFormat, readTranscripts } from '../../electron/importers/index.js';
import { sqliteBackend } from '../../electron/importers/readers/sqlite.js';

const paths = process.argv.slice(2);
const files: unknown[] = [];
for await (const file of readTranscripts(paths)) {
  if ('error' in file) {
    files.push({ file: file.file, error: file.error.message });
    continue;
  }
  const sessions = [];
  for await (const session of file.sessions) sessions.push(session);
  files.push({ file: file.file, sessions });
}
const detected = paths.filter((p) => statSync(p).isFile()).map((p) => detectFormat(readFileSync(p)) ?? null);
process.stdout.write(JSON.stringify({ driver: sqliteBackend(), files, detected }));
