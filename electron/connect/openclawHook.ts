/**
 * OpenClaw's per-turn save: an internal hook (OpenClaw 2026.9, docs/automation/hooks) the Gateway
 * runs on `message:sent`, after each reply it delivers, and on `/new` and `/reset`. The handler runs
 * `session-memory hook --file <the agent's database>` (or `sync --source openclaw` when the session
 * names no agent whose database is there), one save at a time per database, bounded by a timeout.
 * Its name is not `session-memory`: OpenClaw bundles a hook of that name.
 */
import type { McpLaunch } from '../../shared/ipc.js';

export const OPENCLAW_HOOK_NAME = 'session-memory-save';
const EVENTS = ['message:sent', 'command:new', 'command:reset'];

export function openclawHookDoc(): string {
  return [
    '---',
    `name: ${OPENCLAW_HOOK_NAME}`,
    'description: "Save each conversation to Session Memory after every reply"',
    `metadata: { "openclaw": { "events": ${JSON.stringify(EVENTS)} } }`,
    '---',
    '',
    '# Session Memory',
    '',
    'Runs `session-memory hook` on the agent\'s session database after each reply the Gateway sends,',
    'so the conversation is searchable long-term memory at once. Written by',
    '`session-memory connect openclaw`; `session-memory connect openclaw --remove` deletes it.',
    '',
  ].join('\n');
}

/** The handler, with the CLI's launch and OpenClaw's state folder written in (the Gateway passes neither). */
export function openclawHandler(cli: McpLaunch, stateDir: string): string {
  return `// Written by \`session-memory connect openclaw\`; \`session-memory connect openclaw --remove\` deletes it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const CLI = ${JSON.stringify({ command: cli.command, args: cli.args, env: cli.env })};
const STATE_DIR = ${JSON.stringify(stateDir)};
const TIMEOUT_MS = 60000;
const running = new Map();

function databaseOf(sessionKey) {
  const agent = /^agent:([^:]+):/.exec(typeof sessionKey === 'string' ? sessionKey : '')?.[1];
  if (!agent || agent.includes('..') || agent.includes('/') || agent.includes('\\\\')) return null;
  const file = path.join(STATE_DIR, 'agents', agent, 'agent', 'openclaw-agent.sqlite');
  return existsSync(file) ? file : null;
}

function run(args) {
  return new Promise((resolve) => {
    const child = spawn(CLI.command, [...CLI.args, ...args], { env: { ...process.env, ...CLI.env }, stdio: 'ignore', windowsHide: true });
    const timer = setTimeout(() => child.kill(), TIMEOUT_MS);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    child.once('error', done);
    child.once('exit', done);
  });
}

/** One save per database at a time; replies sent meanwhile are saved by one more run after it. */
function save(key, args) {
  const state = running.get(key);
  if (state) {
    state.again = true;
    return state.promise;
  }
  const entry = { again: false, promise: null };
  entry.promise = (async () => {
    do {
      entry.again = false;
      await run(args);
    } while (entry.again);
    running.delete(key);
  })();
  running.set(key, entry);
  return entry.promise;
}

export default async function saveToSessionMemory(event) {
  if (event?.type === 'message' && event.action !== 'sent') return;
  const database = databaseOf(event?.sessionKey);
  await (database ? save(database, ['hook', '--file', database]) : save('', ['sync', '--source', 'openclaw']));
}
`;
}
