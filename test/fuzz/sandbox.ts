/**
 * The importers behind a hard time limit: each case runs in a worker thread (sandbox-worker.ts,
 * TypeScript loaded through tsx as the embedding worker does), and a case that overruns its
 * budget terminates the worker, which is started again for the next case. A `Promise.race` alone
 * would not do: a synchronous loop (a cycle followed forever) never yields to the timer.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ErrorReport, FileReport, SandboxRequest, SandboxResponse } from './sandbox-worker.js';

export type { ErrorReport, FileReport } from './sandbox-worker.js';

export type SandboxOutcome =
  | { kind: 'files'; files: FileReport[]; ms: number }
  | { kind: 'threw'; error: ErrorReport; ms: number }
  /** The worker itself failed: an uncaught exception or unhandled rejection escaped the importer. */
  | { kind: 'crashed'; error: string; ms: number }
  | { kind: 'timeout'; ms: number };

const BOOT = `
const { workerData } = require('node:worker_threads');
import(workerData.tsx).then((api) => {
  (api.register ?? api.default.register)();
  return import(workerData.entry);
});
`;

export class ImporterSandbox {
  private worker: Worker | undefined;
  private ready: Promise<void> | undefined;
  private nextId = 1;
  private current: { id: number; settle: (outcome: SandboxOutcome) => void; started: number } | undefined;

  /** Runs one case; never rejects. */
  async run(request: Omit<SandboxRequest, 'id'>, timeoutMs: number): Promise<SandboxOutcome> {
    const worker = await this.start();
    const id = this.nextId++;
    return new Promise<SandboxOutcome>((resolve) => {
      const started = performance.now();
      const timer = setTimeout(() => {
        this.current = undefined;
        void this.stop();
        resolve({ kind: 'timeout', ms: performance.now() - started });
      }, timeoutMs);
      this.current = {
        id,
        started,
        settle: (outcome) => {
          clearTimeout(timer);
          this.current = undefined;
          resolve(outcome);
        },
      };
      worker.postMessage({ ...request, id } satisfies SandboxRequest);
    });
  }

  async close(): Promise<void> {
    await this.stop();
  }

  private start(): Promise<Worker> {
    if (this.worker && this.ready) {
      const worker = this.worker;
      return this.ready.then(() => worker);
    }
    const require = createRequire(import.meta.url);
    const worker = new Worker(BOOT, {
      eval: true,
      workerData: {
        // The ESM build of tsx's API (require.resolve finds its CommonJS twin beside it).
        tsx: pathToFileURL(require.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href,
        entry: new URL('./sandbox-worker.ts', import.meta.url).href,
      },
      // The importers run on the main thread of the CLI and of Electron's main process: give the
      // worker a stack of that size, so a recursion that overflows there overflows here too.
      resourceLimits: { stackSizeMb: 1 },
      stdout: false,
      stderr: false,
    });
    this.worker = worker;
    this.ready = new Promise<void>((resolve, reject) => {
      const onMessage = (message: SandboxResponse) => {
        if (message.type === 'ready') {
          resolve();
          return;
        }
        const current = this.current;
        if (!current || current.id !== message.id) return;
        current.settle(message.type === 'result' ? { kind: 'files', files: message.files, ms: message.ms } : { kind: 'threw', error: message.error, ms: message.ms });
      };
      const onFailure = (error: unknown) => {
        const description = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error);
        if (this.worker === worker) {
          this.worker = undefined;
          this.ready = undefined;
        }
        reject(new Error(`the importer sandbox failed to start: ${description}`));
        const current = this.current;
        if (current) current.settle({ kind: 'crashed', error: description, ms: performance.now() - current.started });
      };
      worker.on('message', onMessage);
      worker.on('error', onFailure);
      worker.on('exit', (code) => {
        if (this.worker === worker) onFailure(new Error(`the sandbox worker exited with code ${code}`));
      });
    });
    // A failed start is reported by `run`; keep it from counting as an unhandled rejection meanwhile.
    this.ready.catch(() => {});
    return this.ready.then(() => worker);
  }

  private async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    if (worker) await worker.terminate();
  }
}
