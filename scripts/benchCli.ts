/**
 * The CLI's start-up as a hook after every turn feels it, each figure the median of several runs
 * of a fresh process, beside Node's own start (`node -e 0`) measured the same way:
 * - cliHelpMs: `session-memory --help`;
 * - hookResaveMs: `hook` on a Claude Code log with nothing new (cold: no other process; warm: handed
 *   to a running `sync --watch`), and syncNothingNewMs: `sync` with nothing new;
 * - hookAppendMs: `hook` after two messages were appended (cold: the hook opens the store and loads
 *   the model itself; warm: handed to a running `sync --watch`, whose model is loaded; saver: handed
 *   to the hooks' saver an earlier hook left running, as when neither the app nor `sync --watch` runs);
 * - hookNothingNewGrownMs: `hook` on a log grown only by the bookkeeping lines Claude Code appends
 *   after each Stop (cold: the file is read again, the store is not opened nor the model loaded);
 * - mcpHandshakeMs: `mcp` from its start to its answer to `tools/list` (after `initialize`), which
 *   an assistant that starts the server with its session waits for before its first request.
 * Other work on the machine slows single runs: hence medians, Node's start measured alongside, and
 * (where /usr/bin/time exists) the CPU time of each run, which waiting for a busy core does not add to.
 */
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { askToYield, handoffAddress } from '../electron/sources/handoff.js';
import { processCpuMs } from './benchDatabase.js';
import { mcpHandshake } from './mcpHandshake.js';

const BIN = path.resolve('bin/session-memory.mjs');
const SESSION = '0b1e7c2d-3a4f-4b5c-9d6e-7f8091a2b3c4';

export interface CliFigures {
  runs: number;
  nodeMs: number;
  cliHelpMs: number;
  syncNothingNewMs: number;
  hookResaveMs: { cold: number; warm: number; saver: number };
  hookAppendMs: { cold: number; warm: number; saver: number };
  hookNothingNewGrownMs: number;
  mcpHandshakeMs: number;
  /** CPU time (user + system, all threads) of the same runs, medians; null where /usr/bin/time is missing. */
  cpuMs: Record<string, number> | null;
  /** Each figure less Node's own start. */
  overNode: { cliHelpMs: number; syncNothingNewMs: number; hookResaveMs: { cold: number; warm: number }; hookNothingNewGrownMs: number; mcpHandshakeMs: number };
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function claudeCodeLines(from: number, count: number): string {
  let out = '';
  for (let i = from; i < from + count; i++) {
    const user = i % 2 === 0;
    const text = user ? `Question ${i}: how should I prune the apple tree this winter?` : `Answer ${i}: cut crossing branches and keep an open centre; prune on a dry day.`;
    const message = user ? { role: 'user', content: text } : { role: 'assistant', content: [{ type: 'text', text }] };
    out += `${JSON.stringify({ type: user ? 'user' : 'assistant', uuid: `b-${i}`, parentUuid: i === 0 ? null : `b-${i - 1}`, sessionId: SESSION, timestamp: new Date(Date.UTC(2026, 10, 30, 10, i)).toISOString(), message })}\n`;
  }
  return out;
}

/** What Claude Code appends after each Stop: a system line and a file-history snapshot, no dialogue. */
function bookkeepingLines(after: number): string {
  const at = new Date(Date.UTC(2026, 10, 30, 12, after)).toISOString();
  return (
    `${JSON.stringify({ type: 'system', subtype: 'stop_hook_summary', uuid: `s-${after}`, parentUuid: `b-${after}`, sessionId: SESSION, timestamp: at, content: 'Stop hook ran', level: 'info' })}\n` +
    `${JSON.stringify({ type: 'file-history-snapshot', messageId: `b-${after}`, snapshot: { messageId: `b-${after}`, trackedFileBackups: {}, timestamp: at }, isSnapshotUpdate: false })}\n`
  );
}

/** `mcp` from its start to its answer to tools/list (initialize first, as every client does). */
async function timedMcpHandshake(env: NodeJS.ProcessEnv, data: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, '--data', data, 'mcp'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  await mcpHandshake(child, 'bench');
  const ms = performance.now() - started;
  // The server's CPU time until it answered the tool list (its warm-up starts then, and may add its first tick).
  const used = processCpuMs(child.pid);
  if (used !== undefined) (cpu.mcpHandshakeMs ??= []).push(used);
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.stdin.end();
  await closed;
  return ms;
}

function answers(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(address);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

const TIME = '/usr/bin/time';
const cpu: Record<string, number[]> = {};

/** Runs `node <args>` and returns its wall time; its CPU time goes to `cpu[label]`. */
function timedRun(args: string[], env: NodeJS.ProcessEnv, input?: string, label?: string): number {
  const counted = label !== undefined && existsSync(TIME);
  const [command, argv] = counted ? [TIME, ['-f', 'cpu %U %S', process.execPath, ...args]] : [process.execPath, args];
  const started = performance.now();
  const result = spawnSync(command, argv, { env, input: input ?? '', stdio: ['pipe', 'pipe', 'pipe'] });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr.toString()}`);
  if (counted) {
    const match = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(result.stderr.toString());
    if (match) (cpu[label] ??= []).push((Number(match[1]) + Number(match[2])) * 1000);
  }
  return ms;
}

export async function measureCli(tmp: string, modelsDir: string, runs = 9, log: (line: string) => void = console.log): Promise<CliFigures> {
  // The figures are the bundle's (`npm ci` builds it), not the TypeScript sources' through tsx.
  spawnSync(process.execPath, ['scripts/build-cli.mjs'], { stdio: 'inherit' });
  const home = path.join(tmp, 'cli-home');
  const project = path.join(home, '.claude', 'projects', '-bench');
  mkdirSync(project, { recursive: true });
  const data = path.join(tmp, 'cli-data');
  const log0 = path.join(project, `${SESSION}.jsonl`);
  writeFileSync(log0, claudeCodeLines(0, 40));
  const env = { ...process.env, HOME: home, USERPROFILE: home, SESSION_MEMORY_MODELS_DIR: modelsDir, SESSION_MEMORY_MODEL: 'use-lite-en' };
  const hookInput = JSON.stringify({ session_id: SESSION, transcript_path: log0, hook_event_name: 'Stop' });
  // Cold: a hook that leaves no saver behind (`--stay 0`), so the next one starts cold too.
  const hook = ['--data', data, 'hook', '--stay', '0'];
  timedRun([BIN, ...hook], env, hookInput); // the first save: creates the store

  const node: number[] = [];
  const help: number[] = [];
  const syncNothing: number[] = [];
  const resaveCold: number[] = [];
  const appendCold: number[] = [];
  const grown: number[] = [];
  const handshake: number[] = [];
  let next = 40;
  for (let i = 0; i < runs; i++) {
    node.push(timedRun(['-e', '0'], env, '', 'nodeMs'));
    help.push(timedRun([BIN, '--help'], env, '', 'cliHelpMs'));
    syncNothing.push(timedRun([BIN, '--data', data, 'sync', '--source', 'claude-code'], env, '', 'syncNothingNewMs'));
    resaveCold.push(timedRun([BIN, ...hook], env, hookInput, 'hookResaveColdMs'));
    appendFileSync(log0, claudeCodeLines(next, 2));
    next += 2;
    appendCold.push(timedRun([BIN, ...hook], env, hookInput, 'hookAppendColdMs'));
    appendFileSync(log0, bookkeepingLines(next - 1));
    grown.push(timedRun([BIN, ...hook], env, hookInput, 'hookNothingNewGrownMs'));
    handshake.push(await timedMcpHandshake(env, data));
  }

  // Warm: a `sync --watch` holds the store and the model; hooks hand their saves to it.
  const watcher = spawn(process.execPath, [BIN, '--data', data, 'sync', '--watch', '--source', 'claude-code', '--debounce', '60000'], { env, stdio: 'ignore' });
  const resaveWarm: number[] = [];
  const appendWarm: number[] = [];
  try {
    const started = Date.now();
    while (!existsSync(path.join(data, 'sync.token'))) {
      if (Date.now() - started > 60_000) throw new Error('sync --watch did not start serving hooks');
      await new Promise((r) => setTimeout(r, 100));
    }
    // The first handed-over append loads the model in the watcher: not counted.
    appendFileSync(log0, claudeCodeLines(next, 2));
    next += 2;
    timedRun([BIN, ...hook], env, hookInput);
    for (let i = 0; i < runs; i++) {
      resaveWarm.push(timedRun([BIN, ...hook], env, hookInput, 'hookResaveWarmMs'));
      appendFileSync(log0, claudeCodeLines(next, 2));
      next += 2;
      appendWarm.push(timedRun([BIN, ...hook], env, hookInput, 'hookAppendWarmMs'));
    }
  } finally {
    watcher.kill('SIGINT');
    await new Promise((resolve) => watcher.on('close', resolve));
  }

  // The hooks' saver: nothing else serves the folder, so the first hook (not counted) saves cold and
  // leaves a saver, to which the next ones hand their saves.
  const resaveSaver: number[] = [];
  const appendSaver: number[] = [];
  const hookLeaving = ['--data', data, 'hook', '--stay', '2'];
  appendFileSync(log0, claudeCodeLines(next, 2));
  next += 2;
  timedRun([BIN, ...hookLeaving], env, hookInput);
  try {
    const started = Date.now();
    while (!(await answers(handoffAddress(data)))) {
      if (Date.now() - started > 60_000) throw new Error('no hooks\' saver started');
      await new Promise((r) => setTimeout(r, 100));
    }
    // A person's next turn comes seconds later: by then the saver has loaded the model.
    await new Promise((r) => setTimeout(r, 3000));
    for (let i = 0; i < runs; i++) {
      resaveSaver.push(timedRun([BIN, ...hookLeaving], env, hookInput, 'hookResaveSaverMs'));
      appendFileSync(log0, claudeCodeLines(next, 2));
      next += 2;
      appendSaver.push(timedRun([BIN, ...hookLeaving], env, hookInput, 'hookAppendSaverMs'));
    }
  } finally {
    await askToYield(data);
  }

  const nodeMs = median(node);
  const figures: CliFigures = {
    runs,
    nodeMs: Math.round(nodeMs),
    cliHelpMs: Math.round(median(help)),
    syncNothingNewMs: Math.round(median(syncNothing)),
    hookResaveMs: { cold: Math.round(median(resaveCold)), warm: Math.round(median(resaveWarm)), saver: Math.round(median(resaveSaver)) },
    hookAppendMs: { cold: Math.round(median(appendCold)), warm: Math.round(median(appendWarm)), saver: Math.round(median(appendSaver)) },
    hookNothingNewGrownMs: Math.round(median(grown)),
    mcpHandshakeMs: Math.round(median(handshake)),
    cpuMs: Object.keys(cpu).length > 0 ? Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, Math.round(median(v))])) : null,
    overNode: {
      cliHelpMs: Math.round(median(help) - nodeMs),
      syncNothingNewMs: Math.round(median(syncNothing) - nodeMs),
      hookResaveMs: { cold: Math.round(median(resaveCold) - nodeMs), warm: Math.round(median(resaveWarm) - nodeMs) },
      hookNothingNewGrownMs: Math.round(median(grown) - nodeMs),
      mcpHandshakeMs: Math.round(median(handshake) - nodeMs),
    },
  };
  log(`CLI start-up, medians of ${runs} runs: node -e 0 ${figures.nodeMs} ms; --help ${figures.cliHelpMs} ms (+${figures.overNode.cliHelpMs}); sync with nothing new ${figures.syncNothingNewMs} ms (+${figures.overNode.syncNothingNewMs})`);
  log(`hook with nothing new: cold ${figures.hookResaveMs.cold} ms (+${figures.overNode.hookResaveMs.cold}), handed to sync --watch ${figures.hookResaveMs.warm} ms (+${figures.overNode.hookResaveMs.warm})`);
  log(`hook on a log grown only by bookkeeping lines: ${figures.hookNothingNewGrownMs} ms (+${figures.overNode.hookNothingNewGrownMs}); mcp handshake (initialize, tools/list): ${figures.mcpHandshakeMs} ms (+${figures.overNode.mcpHandshakeMs})`);
  log(`hook after a 2-message append: cold ${figures.hookAppendMs.cold} ms (store and model loaded by the hook), handed to sync --watch ${figures.hookAppendMs.warm} ms`);
  log(`hook handed to the saver an earlier hook left: nothing new ${figures.hookResaveMs.saver} ms, after a 2-message append ${figures.hookAppendMs.saver} ms`);
  if (figures.cpuMs) log(`CPU time of the same runs (medians, ms): ${Object.entries(figures.cpuMs).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  return figures;
}
