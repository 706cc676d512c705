/**
 * What every format reads through, knowing no format: where bytes come from (a file or a ZIP entry,
 * sources.ts), ZIP archives, zstd-compressed files, the one SQLite module (two backends: better-sqlite3
 * in Node, node:sqlite in Electron), text encodings, JSONL lines and records, and JSON syntax errors
 * named by line and column. Inside the importers, modules import these by path; this entry is for
 * code outside them.
 */
export * from './encoding.js';
export * from './json-syntax.js';
export * from './jsonl-record.js';
export * from './jsonl.js';
export * from './sources.js';
export * from './sqlite.js';
export * from './zip.js';
export * from './zstd.js';
