/**
 * The saves hooks hand over (handoff.ts), as a process that already holds the store open makes them:
 * one at a time, each the file the hook names read as `hook` reads it (sync.ts), secrets redacted,
 * its reports, skipped parts and errors sent back to the hook. Used by the hooks' saver
 * (cli/hookSaver.ts) and the MCP server (mcp/server.ts).
 */
import type { SaveReport } from '../../shared/domain.js';
import { SourceCursors } from './cursors.js';
import type { HandoffReply, HandoffRequest } from './handoff.js';
import type { SavingEngine } from './saveFile.js';
import { syncFile } from './sync.js';

export interface HandedSaves {
  /** The handler for serveHandoff. */
  handle: (request: HandoffRequest, reply: (line: HandoffReply) => void) => Promise<boolean>;
  /** Resolves once the saves handed over so far have ended. */
  idle: () => Promise<void>;
  /** Saves handed over and ended. */
  count: () => number;
}

export function handedSaves(dataDir: string, engine: () => Promise<SavingEngine>, options: { signal?: AbortSignal; reportJson?: (report: SaveReport) => Record<string, unknown> } = {}): HandedSaves {
  let queue: Promise<unknown> = Promise.resolve();
  let saves = 0;
  const handle = (request: HandoffRequest, reply: (line: HandoffReply) => void): Promise<boolean> => {
    const job = queue.then(async () => {
      // Read for each save: a sync or another process may have moved them since.
      const cursors = await SourceCursors.load(dataDir);
      await syncFile('hook', request.file, 'files', {
        cursors,
        engine,
        ...(request.include ? { include: request.include } : {}),
        redact: true,
        ...(options.signal ? { signal: options.signal } : {}),
        onReport: (source, file, report) => reply({ report: { source, file, ...(options.reportJson ? options.reportJson(report) : report) } }),
        onError: (_source, file, message) => reply({ error: message, file }),
        onSkipped: (source, part) => reply({ skipped: { source, ...part } }),
        onUnsupported: (_source, message) => reply({ error: message, file: request.file }),
      });
      saves++;
      return true;
    });
    queue = job.catch(() => {});
    return job;
  };
  return { handle, idle: async () => void (await queue), count: () => saves };
}
