/**
 * The MCP server's tools on the SDK's protocol-level `Server`, rather than its `McpServer`. McpServer
 * accepts both zod 3 and zod 4 schemas, so it loads zod 3 and a zod-3-to-JSON-Schema converter (with
 * its own code, some 200 KB of the bundle) before the server can answer its handshake; these tools
 * are described with zod 4 alone, which the SDK's protocol needs anyway. As McpServer does, a call's
 * arguments are checked against the tool's input schema, its structured result against its output
 * schema, and a failure becomes an error result (one line) rather than a protocol error.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

export interface ToolConfig<Input extends z.ZodRawShape, Output extends z.ZodRawShape> {
  title: string;
  description: string;
  inputSchema: Input;
  outputSchema: Output;
  annotations?: ToolAnnotations;
}

interface RegisteredTool {
  title: string;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  annotations?: ToolAnnotations;
  handler: (args: unknown) => Promise<CallToolResult>;
}

export class ToolServer {
  readonly server: Server;
  private readonly tools = new Map<string, RegisteredTool>();

  /** `instructions`: what the server is for, given to the client in the handshake. */
  constructor(info: { name: string; version: string }, instructions?: string) {
    this.server = new Server(info, { capabilities: { tools: { listChanged: true } }, ...(instructions ? { instructions } : {}) });
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...this.tools].map(([name, tool]) => describe(name, tool)) }));
    this.server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const { name, arguments: args } = request.params;
      const tool = this.tools.get(name);
      if (!tool) return failed(`Tool ${name} not found`);
      const input = await tool.input.safeParseAsync(args ?? {});
      if (!input.success) return failed(`Invalid arguments for tool ${name}: ${issuesOf(input.error)}`);
      let result: CallToolResult;
      try {
        result = await tool.handler(input.data);
      } catch (error) {
        return failed(error instanceof Error ? error.message : String(error));
      }
      if (!result.isError) {
        const output = await tool.output.safeParseAsync(result.structuredContent);
        if (!output.success) return failed(`Invalid structured content for tool ${name}: ${issuesOf(output.error)}`);
      }
      return result;
    });
  }

  registerTool<Input extends z.ZodRawShape, Output extends z.ZodRawShape>(name: string, config: ToolConfig<Input, Output>, handler: (args: z.output<z.ZodObject<Input>>) => Promise<CallToolResult>): void {
    this.tools.set(name, {
      title: config.title,
      description: config.description,
      input: z.object(config.inputSchema),
      output: z.object(config.outputSchema),
      ...(config.annotations ? { annotations: config.annotations } : {}),
      handler: (args) => handler(args as z.output<z.ZodObject<Input>>),
    });
  }

  connect(transport: Transport): Promise<void> {
    return this.server.connect(transport);
  }

  close(): Promise<void> {
    return this.server.close();
  }
}

/** A tool as `tools/list` gives it: its schemas in JSON Schema (draft 7, as McpServer gives them). */
function describe(name: string, tool: RegisteredTool): Tool {
  return {
    name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, { target: 'draft-7', io: 'input' }) as Tool['inputSchema'],
    outputSchema: z.toJSONSchema(tool.output, { target: 'draft-7', io: 'output' }) as NonNullable<Tool['outputSchema']>,
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    // None of these tools runs as a task (a call is answered when it is done).
    execution: { taskSupport: 'forbidden' },
  };
}

function failed(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** "Too small: expected number to be >=1 (limit)", one line for all the issues. */
function issuesOf(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length > 0 ? `${issue.message} (${issue.path.join('.')})` : issue.message)).join('; ');
}
