/**
 * Chat exports: the files people download from chat apps and keep (ChatGPT, Claude, Grok, LibreChat,
 * AI Studio, Gemini's Takeout activity, Open WebUI), the chats desktop apps keep on disk (SillyTavern,
 * LM Studio, Jan), Markdown transcripts, and the engine's own JSON. One module per format, each with its check (`isX`) and its mapper (`mapX`);
 * the registry (../formats.ts) decides which one reads a file. Inside the importers, modules import
 * these by path; this entry is for code outside them.
 */
export * from './ai-studio.js';
export * from './chatgpt.js';
export * from './claude.js';
export * from './engine-json.js';
export * from './gemini.js';
export * from './grok.js';
export * from './jan.js';
export * from './librechat.js';
export * from './lmstudio.js';
export * from './markdown.js';
export * from './specstory.js';
export * from './deepseek.js';
export * from './chatMessages.js';
export * from './whatsapp.js';
export * from './open-webui.js';
export * from './sillytavern.js';
