/**
 * The MCP handshake as a client that starts the server with its session does it: `initialize`, then
 * `notifications/initialized` and `tools/list`, over the server's stdin and stdout (one JSON message a
 * line). Shared by the start-up benchmark (scripts/benchCli.ts) and the tests of the server's start.
 */
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

export type McpChild = ChildProcessByStdio<Writable, Readable, null> | ChildProcessByStdio<Writable, Readable, Readable>;

/** Resolves with the tool names of the answer to `tools/list`; rejects when the server exits or answers with an error first. */
export function mcpHandshake(child: McpChild, clientName = 'handshake'): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const reply = JSON.parse(buffer.slice(0, newline)) as { id?: number; error?: { message: string }; result?: { tools?: Array<{ name: string }> } };
        buffer = buffer.slice(newline + 1);
        if (reply.error) {
          done();
          reject(new Error(`the MCP server answered request ${reply.id} with an error: ${reply.error.message}`));
        } else if (reply.id === 1) {
          send({ method: 'notifications/initialized' });
          send({ id: 2, method: 'tools/list' });
        } else if (reply.id === 2) {
          done();
          resolve((reply.result?.tools ?? []).map((tool) => tool.name));
        }
      }
    };
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`the MCP server exited (${code}) before it answered tools/list`));
    };
    const done = () => {
      child.stdout.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout.on('data', onData);
    child.once('exit', onExit);
    child.once('error', reject);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: clientName, version: '1' } } });
  });
}
