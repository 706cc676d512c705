// Worker entry. Source checkouts run TypeScript through tsx; the CLI bundle and the packaged app
// ship their own compiled worker (scripts/build-cli.mjs, scripts/build-electron.mjs).
import { register } from 'tsx/esm/api';

register();
await import('./databaseWorker.ts');
