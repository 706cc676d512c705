/**
 * Hands a save to the process that already holds the store open (the app, or `sync --watch`), so a
 * hook run after every turn does not load the store and the model itself: a Unix socket (permissions
 * 0600) in a runtime folder of this user's own (0700), named by a hash of the data folder, or, on
 * Windows, a named pipe. The socket is not in the data folder: a Unix socket's path holds at most
 * about 100 bytes, and a data folder under macOS's `~/Library/Application Support/...` leaves too
 * few of them. Either way the client must first send the token kept in the data folder (0600), which
 * only the person who owns that folder can read: a named pipe's default permissions let other
 * accounts connect, the token keeps them out.
 *
 * One JSON object a line. The client sends `{token}` then `{op: "save", file, include?}`; the server
 * answers with `{report}`, `{skipped}` and `{error}` lines and ends with `{done: true, read}`.
 *
 * Servers come in two ranks. The app and `sync --watch` run for as long as the person keeps them.
 * A hooks' saver (cli/hookSaver.ts), which a hook left running for the next turns, and an
 * assistant's MCP server (mcp/server.ts), which lasts as long as its session, give way: to
 * `{op: "yield"}` they answer `{done: true, read: false}` and close. An app or `sync --watch` that
 * finds one of them serving its data folder asks it to yield and serves in its place.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { promises as fs } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface HandoffRequest {
  op: 'save';
  file: string;
  include?: Array<'tools' | 'thinking'>;
}

export type HandoffReply = { report: Record<string, unknown> } | { skipped: Record<string, unknown> } | { error: string; file?: string } | { done: true; read: boolean };

export const TOKEN_FILE = 'sync.token';

/** How long a client waits for the server's answer by default before it leaves the save to the next sync or hook. */
export const HANDOFF_TIMEOUT_MS = 3000;

/**
 * This user's folder for the sockets: `$XDG_RUNTIME_DIR/session-memory` where the system keeps a
 * runtime folder per user (Linux), else `session-memory-<uid>` in the temporary folder (per user on
 * macOS already). Short, so that the socket's path fits.
 */
export function runtimeFolder(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && path.isAbsolute(runtime)) return path.join(runtime, 'session-memory');
  return path.join(os.tmpdir(), `session-memory-${typeof process.getuid === 'function' ? process.getuid() : os.userInfo().username}`);
}

/** Where the server of a data folder listens. */
export function handoffAddress(dataDir: string, platform: NodeJS.Platform = process.platform, folder: string = runtimeFolder()): string {
  const resolved = path.resolve(dataDir);
  if (platform === 'win32') return `\\\\.\\pipe\\session-memory-${createHash('sha256').update(resolved.toLowerCase()).digest('hex').slice(0, 24)}`;
  return path.join(folder, `${createHash('sha256').update(resolved).digest('hex').slice(0, 16)}.sock`);
}

/**
 * Makes sure the socket's folder is this user's alone (created 0700): a folder in a shared temporary
 * directory that another account made first, or made readable to others, is not used (a socket
 * there could be theirs, and would be handed the token). False when it cannot be.
 */
async function privateFolder(folder: string, create: boolean): Promise<boolean> {
  if (process.platform === 'win32') return true;
  if (create) await fs.mkdir(folder, { recursive: true, mode: 0o700 }).catch(() => {});
  const stat = await fs.lstat(folder).catch(() => null);
  if (!stat || !stat.isDirectory() || (typeof process.getuid === 'function' && stat.uid !== process.getuid())) return false;
  if ((stat.mode & 0o077) !== 0) {
    if (!create) return false;
    await fs.chmod(folder, 0o700);
  }
  return true;
}

export interface HandoffServer {
  address: string;
  /** The token this server wrote to the data folder (another server that starts writes its own). */
  token: string;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** A server that gives way (a saver, an MCP server): called once a token holder asks it to (after the answer is sent). */
  onYield?: () => void;
  /** Ask a server that gives way, already serving this data folder, to do so, and serve in its place. */
  takeOver?: boolean;
  /**
   * Serve only a data folder that is there, not make it (a saver: the folder hooks saved to, which may
   * have been removed since, with an assistant's sandbox). Throws ENOENT when it is gone.
   */
  existingFolder?: boolean;
}

/**
 * Listens for saves handed over. Returns null when another live process already serves this data
 * folder (or the socket's path is too long for the system), and then the caller serves nothing;
 * with `takeOver`, a server that gives way (see above) is first asked to.
 */
export async function serveHandoff(dataDir: string, handle: (request: HandoffRequest, reply: (line: HandoffReply) => void) => Promise<boolean>, options: ServeOptions = {}): Promise<HandoffServer | null> {
  const address = handoffAddress(dataDir);
  if (process.platform !== 'win32' && (Buffer.byteLength(address) > 100 || !(await privateFolder(path.dirname(address), true)))) return null;
  if (await answers(address)) {
    if (!options.takeOver || !(await askToYield(dataDir))) return null;
  }
  if (process.platform !== 'win32') await fs.rm(address, { force: true });
  const token = randomBytes(32).toString('hex');
  if (!options.existingFolder) await fs.mkdir(dataDir, { recursive: true });
  await fs.writeFile(path.join(dataDir, TOKEN_FILE), token, { mode: 0o600 });
  await fs.chmod(path.join(dataDir, TOKEN_FILE), 0o600);

  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffer = '';
    let trusted = false;
    let busy = false;
    socket.on('data', (data: Buffer) => {
      buffer += data.toString('utf8');
      if (buffer.length > 1 << 20) return socket.destroy();
      let newline: number;
      while (!busy && (newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        let message: Record<string, unknown>;
        try {
          message = JSON.parse(line) as Record<string, unknown>;
        } catch {
          return socket.destroy();
        }
        if (!trusted) {
          if (!sameToken(message.token, token)) return socket.destroy();
          trusted = true;
          continue;
        }
        if (message.op === 'yield' && options.onYield) {
          busy = true;
          const onYield = options.onYield;
          socket.end(`${JSON.stringify({ done: true, read: false })}\n`, () => onYield());
          return;
        }
        if (message.op !== 'save' || typeof message.file !== 'string') return socket.destroy();
        busy = true;
        const send = (reply: HandoffReply) => socket.writable && socket.write(`${JSON.stringify(reply)}\n`);
        const request: HandoffRequest = { op: 'save', file: message.file, ...(Array.isArray(message.include) ? { include: message.include.filter((x): x is 'tools' | 'thinking' => x === 'tools' || x === 'thinking') } : {}) };
        void handle(request, send)
          .then(
            (read) => send({ done: true, read }),
            (error: unknown) => {
              send({ error: error instanceof Error ? error.message : String(error), file: request.file });
              send({ done: true, read: true });
            },
          )
          .finally(() => socket.end());
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // The socket is created without permissions for others; chmod below says so again where umask is not honoured.
    const umask = process.platform === 'win32' ? null : process.umask(0o177);
    try {
      server.listen(address, () => resolve());
    } finally {
      if (umask !== null) process.umask(umask);
    }
  });
  if (process.platform !== 'win32') await fs.chmod(address, 0o600);
  return {
    address,
    token,
    async close() {
      // The token first, and only our own: a server that starts once this one stops answering
      // writes its own, which must stay.
      const kept = await fs.readFile(path.join(dataDir, TOKEN_FILE), 'utf8').catch(() => null);
      if (kept === token) await fs.rm(path.join(dataDir, TOKEN_FILE), { force: true });
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether a process serves the hooks of `dataDir` (something answers at its address). */
export async function hooksServed(dataDir: string): Promise<boolean> {
  return answers(handoffAddress(dataDir));
}

/**
 * Asks the saver or MCP server serving `dataDir` to give way. True once it answered and stopped
 * answering (within about 5 s); false when nothing that gives way answers (an app or `sync --watch`
 * serves, which do not, or nothing does).
 */
export async function askToYield(dataDir: string): Promise<boolean> {
  const token = await fs.readFile(path.join(dataDir, TOKEN_FILE), 'utf8').catch(() => null);
  if (token === null) return false;
  const address = handoffAddress(dataDir);
  const socket = await connect(address);
  if (!socket) return false;
  const agreed = await new Promise<boolean>((resolve) => {
    let buffer = '';
    let done = false;
    socket.on('data', (data: Buffer) => {
      buffer += data.toString('utf8');
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        try {
          done ||= (JSON.parse(line) as { done?: unknown }).done === true;
        } catch {
          socket.destroy();
        }
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => resolve(done));
    socket.write(`${JSON.stringify({ token })}\n${JSON.stringify({ op: 'yield' })}\n`);
  });
  if (!agreed) return false;
  for (let waited = 0; waited < 5000; waited += 50) {
    if (!(await answers(address))) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/**
 * Sends a save to the process serving the data folder. `no-server` when none answers (then the
 * caller saves in its own process); `done` once the server finished, its replies passed to `onReply`;
 * `timed-out` when a server took the request but did not finish within `timeoutMs` (it may still be
 * saving: the caller leaves the file to the next sync or hook rather than keep the assistant waiting).
 */
export async function handOff(dataDir: string, request: HandoffRequest, onReply: (reply: HandoffReply) => void, timeoutMs = HANDOFF_TIMEOUT_MS): Promise<'done' | 'no-server' | 'timed-out'> {
  let token: string;
  try {
    token = await fs.readFile(path.join(dataDir, TOKEN_FILE), 'utf8');
  } catch {
    return 'no-server';
  }
  const address = handoffAddress(dataDir);
  if (!(await privateFolder(path.dirname(address), false))) return 'no-server';
  const socket = await connect(address);
  if (!socket) return 'no-server';
  return new Promise((resolve, reject) => {
    let buffer = '';
    let finished = false;
    const timer = setTimeout(() => {
      socket.removeAllListeners('close');
      socket.destroy();
      resolve('timed-out');
    }, timeoutMs);
    socket.on('close', () => clearTimeout(timer));
    socket.on('data', (data: Buffer) => {
      buffer += data.toString('utf8');
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const reply = JSON.parse(buffer.slice(0, newline)) as HandoffReply;
        buffer = buffer.slice(newline + 1);
        if ('done' in reply) finished = true;
        else onReply(reply);
      }
    });
    socket.on('error', (error) => reject(error));
    // A server that hangs up without finishing (it was closing, or refused the token) leaves the save to the caller.
    socket.on('close', () => resolve(finished ? 'done' : 'no-server'));
    socket.write(`${JSON.stringify({ token })}\n${JSON.stringify(request)}\n`);
  });
}

function connect(address: string): Promise<net.Socket | null> {
  return new Promise((resolve) => {
    const socket = net.connect(address);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', () => resolve(null));
  });
}

async function answers(address: string): Promise<boolean> {
  const socket = await connect(address);
  socket?.destroy();
  return socket !== null;
}

function sameToken(given: unknown, token: string): boolean {
  if (typeof given !== 'string' || given.length !== token.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(token));
}
