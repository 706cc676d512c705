/**
 * OpenClaw: its JSONL session files (openclaw.ts), its SQLite store's sessions read as they are
 * written (openclaw-db.ts), and where a store keeps its transcripts (openclaw-store.ts). Inside the
 * importers, modules import these by path; this entry is for code outside them.
 */
export * from './openclaw-db.js';
export * from './openclaw-store.js';
export * from './openclaw.js';
