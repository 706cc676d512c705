/**
 * `session-memory mcp`: the MCP server on stdin/stdout. Stdout carries nothing but the protocol, so
 * anything else that would print there (a library's console.log) goes to stderr with the diagnostics.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
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
  await server.mcp.connect(transport);
  options.logger.info(`session-memory MCP server ready on stdio (data: ${options.storeUri?.replace(/\?.*$/, "") ?? options.dataDir}${options.readOnly ? ', read-only' : ''})`);
  // Load the model while the client looks at the tool list, so the first search answers quickly.
  server.warmUp().catch((error: Error) => options.logger.warn(`the model could not be loaded yet: ${error.message}`));
  await closed;
  await server.close();
}
