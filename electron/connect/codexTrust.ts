/**
 * Codex CLI runs a hook from `hooks.json` only once the person trusted it, and skips an untrusted
 * one without a word (checked with Codex 0.171.0: `codex exec` after `connect` saved nothing).
 * Trust is a hash of the hook that Codex computes and keeps in `config.toml`
 * (`[hooks.state."<key>"] trusted_hash`). Rather than compute that hash ourselves (Codex's own
 * business, free to change), we ask Codex through its app-server protocol, as its `/hooks` screen
 * does: `hooks/list` gives each hook's key, trust and `currentHash`; `config/batchWrite` stores the
 * hash as trusted. Only our own hook (its command line exactly as `connect` wrote it) is trusted.
 */
import { spawn } from 'node:child_process';

export interface CodexTrustOptions {
  /** The hook's command line as written to hooks.json. */
  hookCommand: string;
  /** Codex's folder (`CODEX_HOME`), passed to Codex so it reads the files `connect` wrote. */
  codexHome: string;
  /** The folder hooks are listed for (user-level hooks apply to every folder). */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The Codex executable (default: `codex` on PATH). */
  codex?: string;
  timeoutMs?: number;
}

export type CodexTrustResult =
  | { status: 'trusted' }
  | { status: 'already-trusted' }
  /** Codex is not installed here, or did not answer as expected: the person trusts the hook in `/hooks`. */
  | { status: 'not-trusted'; reason: string };

interface ListedHook {
  key: string;
  command?: string;
  handlerType?: string;
  source?: string;
  currentHash: string;
  trustStatus: 'managed' | 'untrusted' | 'trusted' | 'modified';
}

interface RpcReply {
  id?: number;
  result?: unknown;
  error?: { message?: string };
}

/** Trusts our Codex hook through `codex app-server`; never throws. */
export async function trustCodexHook(options: CodexTrustOptions): Promise<CodexTrustResult> {
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
  const ours = async (): Promise<ListedHook[]> => {
    const listed = (await request('hooks/list', { cwds: [options.cwd] })) as { data?: Array<{ hooks?: ListedHook[] }> } | undefined;
    return (listed?.data ?? []).flatMap((entry) => entry.hooks ?? []).filter((hook) => hook.handlerType === 'command' && hook.command === options.hookCommand);
  };
  const timer = setTimeout(() => failure?.(new Error(`Codex did not answer within ${(options.timeoutMs ?? 20_000) / 1000} s`)), options.timeoutMs ?? 20_000);
  try {
    await request('initialize', { clientInfo: { name: 'session-memory', title: 'Session Memory', version: '1' } });
    child.stdin.write(`${JSON.stringify({ method: 'initialized' })}\n`);
    const hooks = await ours();
    if (hooks.length === 0) return { status: 'not-trusted', reason: 'Codex does not list the hook' };
    const untrusted = hooks.filter((hook) => hook.trustStatus === 'untrusted' || hook.trustStatus === 'modified');
    if (untrusted.length === 0) return { status: 'already-trusted' };
    const state = Object.fromEntries(untrusted.map((hook) => [hook.key, { trusted_hash: hook.currentHash }]));
    await request('config/batchWrite', { edits: [{ keyPath: 'hooks.state', mergeStrategy: 'upsert', value: state }] });
    // Codex's own word that it will run the hook now, not our guess from the write.
    const after = await ours();
    const left = after.filter((hook) => hook.trustStatus === 'untrusted' || hook.trustStatus === 'modified');
    return left.length === 0 ? { status: 'trusted' } : { status: 'not-trusted', reason: 'Codex still lists the hook as untrusted after the write' };
  } catch (error) {
    return { status: 'not-trusted', reason: (error as Error).message };
  } finally {
    clearTimeout(timer);
    failure = null;
    child.stdin.end();
    child.kill();
  }
}
