/**
 * The CLI's entry point in a packaged app, run by the app's binary with ELECTRON_RUN_AS_NODE=1
 * (bin/session-memory.mjs is the entry point in a source checkout). Workers cannot start from inside
 * the asar archive, so the embedding worker and the database reader's are the unpacked copies beside it.
 */
import path from 'node:path';
import { main } from './main.js';

process.env.SESSION_MEMORY_EMBED_WORKER ??= path.join(__dirname, 'embedWorker.mjs').replace(`app.asar${path.sep}`, `app.asar.unpacked${path.sep}`);
process.env.SESSION_MEMORY_DATABASE_WORKER ??= path.join(__dirname, 'databaseWorker.mjs').replace(`app.asar${path.sep}`, `app.asar.unpacked${path.sep}`);
void main(process.argv).then((status) => {
  process.exitCode = status;
});
