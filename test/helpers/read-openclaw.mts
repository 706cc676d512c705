// Reads the transcripts under the paths given and prints them, with the SQLite driver used, as JSON.
// Run by test/importers/openclaw-node-sqlite.test.ts in another Node than the test's.
import { readTranscripts } from '../../electron/importers/index.js';
import { sqliteDriver } from '../../electron/importers/sqlite-readonly.js';

const files: unknown[] = [];
for await (const file of readTranscripts(process.argv.slice(2))) {
  if ('error' in file) {
    files.push({ file: file.file, error: file.error.message });
    continue;
  }
  const sessions = [];
  for await (const session of file.sessions) sessions.push(session);
  files.push({ file: file.file, sessions });
}
process.stdout.write(JSON.stringify({ driver: sqliteDriver(), files }));
