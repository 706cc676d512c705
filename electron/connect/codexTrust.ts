/**
 * Codex CLI runs a hook from `hooks.json` only once the person trusted it, and skips an untrusted
 * one without a word (checked with Codex 0.171.0: `codex exec` after `connect` saved nothing).
 * Trust is a hash of the hook that Codex computes and keeps in `config.toml`
 * (`[hooks.state."<key>"] trusted_hash`). Rather than compute that hash ourselves (Codex's own
 * business, free to change), we ask Codex through its app-server protocol, as its `/hooks` screen
 * does: `hooks/list` gives each hook's key, trust and `currentHash`; `config/batchWrite` stores the
 * hash as trusted. Only our own hook (its command line exactly as `connect` wrote it) is trusted.
 *
 * `connect --remove` takes that record out again the same way: before the hook leaves `hooks.json`,
 * `hooks/list` gives our hook's hash (Codex lists it no more once it is gone) and `config/read` the
 * records holding it (a key is a hook's place, `<hooks.json>:stop:<group>:<handler>`); once it has
 * left, `config/batchWrite` with `value: null` deletes each `hooks.state."<key>"` (checked with Codex
 * 0.171.0: only that table goes, every other line of `config.toml` stays). A record is deleted only
 * while it still holds our hook's hash, so another hook's trust is never touched, even one whose hook
 * moved into our hook's place.
 */
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import path from 'node:path';

export interface CodexAppServerOptions {
  /** Codex's folder (`CODEX_HOME`), passed to Codex so it reads the files `connect` wrote. */
  codexHome: string;
  /** The folder hooks are listed for (user-level hooks apply to every folder). */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The Codex executable (default: `codex` on PATH). */
  codex?: string;
  timeoutMs?: number;
}

export interface CodexTrustOptions extends CodexAppServerOptions {
  /** The hook's command line as written to hooks.json. */
  hookCommand: string;
}

export type CodexTrustResult =
  | { status: 'trusted' }
  | { status: 'already-trusted' }
  /** Codex is not installed here, or did not answer as expected: the person trusts the hook in `/hooks`. */
  | { status: 'not-trusted'; reason: string };

/** Our hook's trust record as Codex keeps it: `hooks.state."<key>".trusted_hash`. */
export interface CodexHookTrust {
  key: string;
  hash: string;
}

export type CodexTrustedHooks =
  /** `movedUp`: the trusted hooks of others listed after ours in the same event, which move up a place when ours goes. */
  | { status: 'listed'; trusted: CodexHookTrust[]; movedUp: number }
  /** Codex is not installed here, or did not answer as expected. */
  | { status: 'unknown'; reason: string };

export type CodexForgetResult =
  | { status: 'forgotten'; keys: string[] }
  /** Nothing to delete: no record left holds our hook's hash. */
  | { status: 'none' }
  | { status: 'left'; reason: string };

interface ListedHook {
  key: string;
  command?: string;
  handlerType?: string;
  source?: string;
  sourcePath?: string;
  currentHash: string;
  trustStatus: 'managed' | 'untrusted' | 'trusted' | 'modified';
}

interface RpcReply {
  id?: number;
  result?: unknown;
  error?: { message?: string };
}

interface AppServer {
  request(method: string, params: unknown): Promise<unknown>;
}

/** Runs `use` against a `codex app-server` of its own, started and initialised for it; ended after. */
async function withCodexAppServer<T>(options: CodexAppServerOptions, use: (server: AppServer) => Promise<T>): Promise<T> {
  const child = spawn(options.codex ?? 'codex', ['app-server'], {
    cwd: options.cwd,
    env: { ...options.env, CODEX_HOME: options.codexHome },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const pending = new Map<number, (reply: RpcReply) => void>();
  let failure: ((error: Error) => void) | null = null;
  const failed = new Promise<never>((_, reject) => {
    failure = reject;
  });
  failed.catch(() => {});
  child.on('error', (error: NodeJS.ErrnoException) => failure?.(new Error(error.code === 'ENOENT' ? 'Codex (`codex`) was not found on PATH' : `\`codex app-server\` did not start (${error.message})`)));
  child.on('exit', (code) => failure?.(new Error(`\`codex app-server\` exited (${code ?? 'signal'}) before it answered`)));
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      let reply: RpcReply;
      try {
        reply = JSON.parse(line) as RpcReply;
      } catch {
        continue;
      }
      if (typeof reply.id === 'number') pending.get(reply.id)?.(reply);
    }
  });
  child.stdin.on('error', () => {});
  let nextId = 0;
  const request = async (method: string, params: unknown): Promise<unknown> => {
    const id = ++nextId;
    const answered = new Promise<RpcReply>((resolve) => pending.set(id, resolve));
    child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    const reply = await Promise.race([answered, failed]);
    pending.delete(id);
    if (reply.error) throw new Error(`Codex answered ${method} with an error: ${reply.error.message ?? 'unknown'}`);
    return reply.result;
  };
  const timer = setTimeout(() => failure?.(new Error(`Codex did not answer within ${(options.timeoutMs ?? 20_000) / 1000} s`)), options.timeoutMs ?? 20_000);
  try {
    await request('initialize', { clientInfo: { name: 'session-memory', title: 'Session Memory', version: '1' } });
    child.stdin.write(`${JSON.stringify({ method: 'initialized' })}\n`);
    return await use({ request });
  } finally {
    clearTimeout(timer);
    failure = null;
    child.stdin.end();
    child.kill();
  }
}

async function listedHooks(server: AppServer, cwd: string): Promise<ListedHook[]> {
  const listed = (await server.request('hooks/list', { cwds: [cwd] })) as { data?: Array<{ hooks?: ListedHook[] }> } | undefined;
  return (listed?.data ?? []).flatMap((entry) => entry.hooks ?? []).filter((hook) => hook.handlerType === 'command');
}

/** Trusts our Codex hook through `codex app-server`; never throws. */
export async function trustCodexHook(options: CodexTrustOptions): Promise<CodexTrustResult> {
  try {
    return await withCodexAppServer(options, async (server) => {
      const ours = async () => (await listedHooks(server, options.cwd)).filter((hook) => hook.command === options.hookCommand);
      const hooks = await ours();
      if (hooks.length === 0) return { status: 'not-trusted', reason: 'Codex does not list the hook' };
      const untrusted = hooks.filter((hook) => hook.trustStatus === 'untrusted' || hook.trustStatus === 'modified');
      if (untrusted.length === 0) return { status: 'already-trusted' };
      const state = Object.fromEntries(untrusted.map((hook) => [hook.key, { trusted_hash: hook.currentHash }]));
      await server.request('config/batchWrite', { edits: [{ keyPath: 'hooks.state', mergeStrategy: 'upsert', value: state }] });
      // Codex's own word that it will run the hook now, not our guess from the write.
      const after = await ours();
      const left = after.filter((hook) => hook.trustStatus === 'untrusted' || hook.trustStatus === 'modified');
      return left.length === 0 ? { status: 'trusted' } : { status: 'not-trusted', reason: 'Codex still lists the hook as untrusted after the write' };
    });
  } catch (error) {
    return { status: 'not-trusted', reason: (error as Error).message };
  }
}

/**
 * The trust records Codex keeps of the hooks of ours in `hooksFile`, read before `--remove` takes them
 * out of it; never throws. A record is ours when it holds the hash Codex gives one of our hooks there
 * (a hash of the hook itself, not of its place), under a key of that file: the one of our hook's place,
 * and any a hook of ours left at another place (a hook above it removed since). A record of another
 * hook holds that hook's hash, and is never taken.
 */
export async function trustedCodexHooks(options: CodexAppServerOptions & { hooksFile: string; isOurs: (command: string) => boolean }): Promise<CodexTrustedHooks> {
  try {
    return await withCodexAppServer(options, async (server) => {
      const hooks = await listedHooks(server, options.cwd);
      const ours = hooks.filter((hook) => typeof hook.sourcePath === 'string' && samePath(hook.sourcePath, options.hooksFile) && typeof hook.command === 'string' && options.isOurs(hook.command));
      if (ours.length === 0) return { status: 'listed', trusted: [], movedUp: 0 };
      const hashes = new Set(ours.map((hook) => hook.currentHash));
      // Codex's keys are `<hooks.json as Codex names it>:<event>:<group>:<handler>`.
      const prefixes = new Set(ours.map((hook) => `${hook.sourcePath!}:`));
      const state = await hookTrustState(server);
      const trusted = Object.entries(state).flatMap(([key, record]) => {
        const hash = trustedHashOf(record);
        return hash !== undefined && hashes.has(hash) && [...prefixes].some((prefix) => key.startsWith(prefix)) ? [{ key, hash }] : [];
      });
      const places = ours.flatMap((hook) => placeOf(hook.key) ?? []);
      const movedUp = hooks.filter((hook) => !ours.includes(hook) && hook.trustStatus === 'trusted' && hook.sourcePath === ours[0]!.sourcePath).filter((hook) => {
        const place = placeOf(hook.key);
        return place !== undefined && places.some((our) => our.event === place.event && (place.group > our.group || (place.group === our.group && place.handler > our.handler)));
      }).length;
      return { status: 'listed', trusted, movedUp };
    });
  } catch (error) {
    return { status: 'unknown', reason: (error as Error).message };
  }
}

/** A hook's place from its key, `<file>:<event>:<group>:<handler>`. */
function placeOf(key: string): { event: string; group: number; handler: number } | undefined {
  const match = /:([^:]+):(\d+):(\d+)$/.exec(key);
  return match ? { event: match[1]!, group: Number(match[2]), handler: Number(match[3]) } : undefined;
}

/** `hooks.state` of the configuration Codex reads: each hook's trust record by key. */
async function hookTrustState(server: AppServer): Promise<Record<string, unknown>> {
  const read = (await server.request('config/read', { includeLayers: false })) as { config?: { hooks?: { state?: unknown } } } | undefined;
  const table = read?.config?.hooks?.state;
  return typeof table === 'object' && table !== null ? (table as Record<string, unknown>) : {};
}

function trustedHashOf(record: unknown): string | undefined {
  const hash = typeof record === 'object' && record !== null ? (record as { trusted_hash?: unknown }).trusted_hash : undefined;
  return typeof hash === 'string' ? hash : undefined;
}

/**
 * Deletes, through Codex, each of `records` from `config.toml` that still holds the hash it was read
 * with (`[hooks.state."<key>"]`), and checks with Codex that they are gone; never throws.
 */
export async function forgetCodexHookTrust(options: CodexAppServerOptions, records: readonly CodexHookTrust[]): Promise<CodexForgetResult> {
  if (records.length === 0) return { status: 'none' };
  try {
    return await withCodexAppServer(options, async (server) => {
      const before = await hookTrustState(server);
      const ours = records.filter((record) => trustedHashOf(before[record.key]) === record.hash);
      if (ours.length === 0) return { status: 'none' };
      // A key path's segment in double quotes, escaped as a TOML basic string (Codex reads it so): a key is a file path.
      const edits = ours.map((record) => ({ keyPath: `hooks.state.${JSON.stringify(record.key)}`, mergeStrategy: 'replace', value: null }));
      await server.request('config/batchWrite', { edits });
      const after = await hookTrustState(server);
      const left = ours.filter((record) => after[record.key] !== undefined);
      return left.length === 0 ? { status: 'forgotten', keys: ours.map((record) => record.key) } : { status: 'left', reason: `Codex still keeps hooks.state.${JSON.stringify(left[0]!.key)} after the write` };
    });
  } catch (error) {
    return { status: 'left', reason: (error as Error).message };
  }
}

/** Codex names files by their real path (a temporary folder's `/var` is `/private/var` on macOS). */
function samePath(a: string, b: string): boolean {
  const real = (file: string) => {
    try {
      return realpathSync.native(file);
    } catch {
      return path.resolve(file);
    }
  };
  return a === b || real(a) === real(b);
}
