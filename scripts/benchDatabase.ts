/**
 * The database sync as a person with a large OpenClaw history meets it: an agent database of 1,000
 * sessions (scripts/openclawSessions.ts), saved once, then one session gets a turn (2 events) and
 * that turn is saved. Figures, medians of fresh processes beside Node's own start (`node -e 0`):
 * - dbSyncMs.handedOver: `hook --file <database>` handed to a running `sync --watch` (the store and
 *   the model loaded there, as in the app): the sync reads only the moved session, in the database
 *   reader's worker, and saves its 2 events. Target: within 150 ms of Node's start.
 * - dbSyncMs.cold: `sync --source openclaw` in a fresh process, which also opens the store and loads
 *   the model to embed the 2 events.
 * - dbFirstSyncMs: the first `sync` of all 1,000 sessions (once).
 * - sessionsRead: how many sessions the change made the sync read, from the database reader itself
 *   with the marks the first sync kept (1: only the moved one).
 * - cpuMs (Linux): CPU time of the same runs, which waiting for a busy core does not add to: the
 *   hook's process (/usr/bin/time) and, handed over, the watcher's work for it (all its threads,
 *   from /proc/<pid>/stat).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { appendOpenClawTurn, openClawSessionId, writeOpenClawDatabase } from './openclawSessions.js';

const BIN = path.resolve('bin/session-memory.mjs');
export const DB_SESSIONS = 1000;

export interface DatabaseSyncFigures {
  sessions: number;
  runs: number;
  nodeMs: number;
  dbFirstSyncMs: number;
  dbSyncMs: { handedOver: number; cold: number };
  /** dbSyncMs less Node's start. */
  overNode: { handedOver: number; cold: number };
  sessionsRead: number;
  /** Medians; null where /usr/bin/time or /proc is missing. */
  cpuMs: { nodeMs: number; handedOverHook: number; handedOverWatcher: number; cold: number } | null;
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const TIME = '/usr/bin/time';
const cpu: Record<string, number[]> = {};

/** Runs `node <args>` and returns its wall time; its CPU time goes to `cpu[label]`. */
function timedRun(args: string[], env: NodeJS.ProcessEnv, label?: string): number {
  const counted = label !== undefined && existsSync(TIME);
  const [command, argv] = counted ? [TIME, ['-f', 'cpu %U %S', process.execPath, ...args]] : [process.execPath, args];
  const started = performance.now();
  const result = spawnSync(command, argv, { env, input: '', stdio: ['pipe', 'pipe', 'pipe'] });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr.toString()}`);
  const match = counted ? /cpu ([\d.]+) ([\d.]+)\s*$/.exec(result.stderr.toString()) : null;
  if (match) (cpu[label!] ??= []).push((Number(match[1]) + Number(match[2])) * 1000);
  return ms;
}

const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/** CPU time a process has used so far (all its threads), in ms; undefined without /proc. */
export function processCpuMs(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Sessions the database reader finds moved since the marks kept in the data folder's cursors. */
async function movedSessions(data: string, file: string): Promise<number> {
  const { readDatabaseChanges, closeDatabaseReader } = await import('../electron/sources/databaseReader.js');
  const kept = (JSON.parse(readFileSync(path.join(data, 'source-cursors.json'), 'utf8')) as { files: Record<string, { marks?: Record<string, string> }> }).files[file];
  const read = await readDatabaseChanges(file, { known: kept?.marks ?? {} });
  read.close();
  await closeDatabaseReader();
  return read.moved.length;
}

export async function measureDatabaseSync(tmp: string, modelsDir: string, runs = 9, log: (line: string) => void = console.log): Promise<DatabaseSyncFigures> {
  const home = path.join(tmp, 'db-home');
  const agent = path.join(home, '.openclaw', 'agents', 'main', 'agent');
  mkdirSync(agent, { recursive: true });
  const file = path.join(agent, 'openclaw-agent.sqlite');
  writeOpenClawDatabase(file, DB_SESSIONS, 1);
  const data = path.join(tmp, 'db-data');
  const env = { ...process.env, HOME: home, USERPROFILE: home, SESSION_MEMORY_MODELS_DIR: modelsDir, SESSION_MEMORY_MODEL: 'use-lite-en' };
  const sync = ['--data', data, 'sync', '--source', 'openclaw'];
  const dbFirstSyncMs = timedRun([BIN, ...sync], env);

  let turn = 2;
  let next = 0;
  const appendTurn = () => {
    const db = new Database(file);
    try {
      appendOpenClawTurn(db, openClawSessionId((next++ * 97) % DB_SESSIONS), turn++);
    } finally {
      db.close();
    }
  };

  appendTurn();
  const sessionsRead = await movedSessions(data, file);

  const node: number[] = [];
  const cold: number[] = [];
  for (let i = 0; i < runs; i++) {
    node.push(timedRun(['-e', '0'], env, 'nodeMs'));
    cold.push(timedRun([BIN, ...sync], env, 'cold'));
    appendTurn();
  }

  // Handed over: a `sync --watch` holds the store and the model; its own poll is kept out of the way.
  const watcher = spawn(process.execPath, [BIN, '--data', data, 'sync', '--watch', '--source', 'openclaw', '--poll', '3600000', '--debounce', '60000'], { env, stdio: 'ignore' });
  const handedOver: number[] = [];
  try {
    const started = Date.now();
    while (!existsSync(path.join(data, 'sync.token'))) {
      if (Date.now() - started > 120_000) throw new Error('sync --watch did not start serving hooks');
      await new Promise((r) => setTimeout(r, 100));
    }
    const hook = [BIN, '--data', data, 'hook', '--file', file];
    // The first hand-over loads the model in the watcher and starts its database reader: not counted.
    timedRun(hook, env);
    for (let i = 0; i < runs; i++) {
      appendTurn();
      const before = processCpuMs(watcher.pid);
      handedOver.push(timedRun(hook, env, 'handedOverHook'));
      const after = processCpuMs(watcher.pid);
      if (before !== undefined && after !== undefined) (cpu.handedOverWatcher ??= []).push(after - before);
    }
  } finally {
    watcher.kill('SIGINT');
    await new Promise((resolve) => watcher.on('close', resolve));
  }

  const nodeMs = median(node);
  const figures: DatabaseSyncFigures = {
    sessions: DB_SESSIONS,
    runs,
    nodeMs: Math.round(nodeMs),
    dbFirstSyncMs: Math.round(dbFirstSyncMs),
    dbSyncMs: { handedOver: Math.round(median(handedOver)), cold: Math.round(median(cold)) },
    overNode: { handedOver: Math.round(median(handedOver) - nodeMs), cold: Math.round(median(cold) - nodeMs) },
    sessionsRead,
    cpuMs: cpu.nodeMs && cpu.handedOverHook && cpu.handedOverWatcher && cpu.cold ? { nodeMs: Math.round(median(cpu.nodeMs)), handedOverHook: Math.round(median(cpu.handedOverHook)), handedOverWatcher: Math.round(median(cpu.handedOverWatcher)), cold: Math.round(median(cpu.cold)) } : null,
  };
  log(`OpenClaw database of ${DB_SESSIONS} sessions: first sync ${figures.dbFirstSyncMs} ms; after one session got 2 events the sync reads ${sessionsRead} session${sessionsRead === 1 ? '' : 's'}`);
  log(`database sync of 2 new events, medians of ${runs}: handed to sync --watch ${figures.dbSyncMs.handedOver} ms (+${figures.overNode.handedOver} over node -e 0 ${figures.nodeMs} ms); cold (store and model loaded) ${figures.dbSyncMs.cold} ms`);
  if (figures.cpuMs) log(`CPU time of the same runs (medians, ms): node -e 0 ${figures.cpuMs.nodeMs}; handed over: the hook ${figures.cpuMs.handedOverHook}, the watcher's sync ${figures.cpuMs.handedOverWatcher}; cold ${figures.cpuMs.cold}`);
  return figures;
}
