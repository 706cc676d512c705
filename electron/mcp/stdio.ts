/**
 * `session-memory mcp`: the MCP server on stdin/stdout. Stdout carries nothing but the protocol, so
 * anything else that would print there (a library's console.log) goes to stderr with the diagnostics.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import packageJson from '../../package.json' with { type: 'json' };
import { MemoryServer, type MemoryServerOptions } from './server.js';

export async function serveStdio(options: Omit<MemoryServerOptions, 'version'>): Promise<void> {
  const toStderr = (...args: unknown[]): void => void process.stderr.write(`${args.map(String).join(' ')}\n`);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;

  const server = new MemoryServer({ ...options, version: packageJson.version });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  // Loading the engine's code blocks this thread for about a second: it starts once the tool list
  // is answered (or a moment after the handshake, for a client that does not ask for it), so the
  // handshake and the tool list never wait for it. Then the model loads while the client works, and
  // the first search answers quickly.
  let warming = false;
  const warmUp = () => {
    if (warming) return;
    warming = true;
    server
      .warmUp()
      .catch((error: Error) => options.logger.warn(`the model could not be loaded yet: ${error.message}`))
      // Then the hooks' saves, with the model loaded (server.ts: serveHooks).
      .then(() => server.serveHooks())
      .catch((error: Error) => options.logger.warn(`hooks cannot hand their saves to this server (${error.message}); they save on their own`));
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await send(message);
    if ('result' in message && Array.isArray((message.result as { tools?: unknown }).tools)) setImmediate(warmUp);
  };
  server.mcp.server.oninitialized = () => setTimeout(warmUp, 1000).unref();
  await server.mcp.connect(transport);
  options.logger.info(`session-memory MCP server ready on stdio (data: ${options.storeUri?.replace(/\?.*$/, "") ?? options.dataDir}${options.readOnly ? ', read-only' : ''})`);
  await closed;
  await server.close();
}
