/**
 * Coding agents' logs and databases: Claude Code, Codex (its rollouts and saved sessions, and the items
 * both share), Gemini CLI, Qwen Code, GitHub Copilot CLI, Google Antigravity, the Cline family's task folders and their Markdown exports, Cline's CLI sessions, aider's chat history, opencode (its
 * `storage/` folder and its database), Continue, Cursor's `state.vscdb`, and VS Code's own chat sessions. One module per tool, each
 * with its check and its mapper; the registry (../formats.ts) and the folder reader (../tool-folders.ts)
 * decide which one reads a file. Inside the importers, modules import these by path; this entry is for
 * code outside them.
 */
export * from './aider.js';
export * from './antigravity.js';
export * from './claude-code.js';
export * from './cline-cli.js';
export * from './cline-markdown.js';
export * from './cline.js';
export * from './codex-items.js';
export * from './codex.js';
export * from './continue.js';
export * from './copilot-cli.js';
export * from './cursor.js';
export * from './gemini-cli.js';
export * from './opencode-files.js';
export * from './opencode.js';
export * from './qwen-code.js';
export * from './vscode-chat.js';
