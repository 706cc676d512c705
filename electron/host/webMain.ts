/**
 * `npm run web -- [--port N] [--data DIR|URI] [--single-writer] [--model NAME]`: serves the UI on
 * 127.0.0.1 and prints the URL to open (with this run's token) as the first line of its output.
 */
// First: quiets LanceDB's own warnings before it loads.
import './lanceLog.js';
import { Command } from 'commander';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultDataDir, isStoreUri, locate, StoreLocationError } from '../engine/files/index.js';
import { MemoryHost } from './memoryHost.js';
import { startWebServer, type WebServer } from './webServer.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function runWeb(argv: string[]): Promise<void> {
  const program = new Command('session-memory-web')
    .option('--port <n>', 'port on 127.0.0.1 (default: a free one)', (v) => Number(v), 0)
    .option('--data <dir|uri>', 'data folder, or a store URI: s3+ddb://bucket/prefix?ddbTableName=T, s3://, gs://, az:// (default: $SESSION_MEMORY_HOME, else the desktop app\'s folder)')
    .option('--single-writer', 'only this machine writes to the shared store: use an s3:// store even when its server lacks conditional writes')
    .option('--model <name|dir>', 'embedding model (default: the store\'s, else $SESSION_MEMORY_MODEL, else the multilingual default)')
    .option('--static <dir>', 'the built UI', path.join(repo, 'dist-renderer'))
    .parse(argv);
  const options = program.opts<{ port: number; data?: string; singleWriter?: boolean; model?: string; static: string }>();
  if (!existsSync(path.join(options.static, 'index.html'))) {
    process.stderr.write(`session-memory web: the UI is not built (${options.static}/index.html is missing); run "npm run build:renderer" first\n`);
    process.exit(1);
  }
  const data = options.data ? (isStoreUri(options.data) ? options.data : path.resolve(options.data)) : defaultDataDir();
  try {
    locate(data);
  } catch (error) {
    if (!(error instanceof StoreLocationError)) throw error;
    process.stderr.write(`session-memory web: --data ${error.message}\n`);
    process.exit(2);
  }
  let server: WebServer | null = null;
  const host = new MemoryHost({
    dataDir: data,
    ...(options.singleWriter ? { singleWriter: true } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(process.env.SESSION_MEMORY_MODELS_DIR ? { modelsDir: path.resolve(process.env.SESSION_MEMORY_MODELS_DIR) } : {}),
    emit: (event, payload) => server?.emit(event, payload),
    cliLauncher: { command: process.execPath, args: [path.join(repo, 'bin', 'session-memory.mjs')] },
    logger: { warn: (m) => process.stderr.write(`warning: ${m}\n`), info: () => {} },
    fileLog: true,
    sources: { intervalMs: 10_000, serveHooks: true },
  });
  // A crash is written to the log before the process goes down.
  process.on('uncaughtException', (error) => {
    host.logger.error('crash', error);
    process.stderr.write(`session-memory web: ${error.stack ?? error.message}\n`);
    void host.close().finally(() => process.exit(1));
  });
  process.on('unhandledRejection', (reason) => host.logger.error('unhandled rejection', reason));
  server = await startWebServer({ handlers: host.handlers, staticDir: options.static, port: options.port, upload: (name, body) => host.stageStream(name, body) });
  process.stdout.write(`${server.url}\n`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server?.close();
    await host.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

await runWeb(process.argv);
