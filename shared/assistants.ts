/**
 * The assistants `session-memory connect` (and Settings › Connect an assistant) can set up. Apart
 * from the IPC contract (ipc.ts, which re-exports them) so that the CLI names them without loading
 * zod: `--help` and a hook after every turn start without it.
 */
export const ASSISTANT_IDS = ['claude-code', 'codex', 'gemini-cli', 'qwen-code', 'copilot-cli', 'openclaw', 'cursor', 'claude-desktop'] as const;
export type AssistantId = (typeof ASSISTANT_IDS)[number];
