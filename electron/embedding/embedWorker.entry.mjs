// Worker entry. Source checkouts run TypeScript through tsx; a packaged build ships compiled JS
// and points the embedder at its own worker file instead.
import { register } from 'tsx/esm/api';

register();
await import('./embedWorker.ts');
