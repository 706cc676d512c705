/**
 * Which files in a folder (or a ZIP archive) are worth opening. Files the person names directly are
 * always read and recognised by content; this is only for expanding folders and archives, where
 * reading every file (images, databases...) would bury the real errors in noise.
 */

/**
 * `.json`, `.jsonl`, Markdown and text; OpenClaw's archived sessions (`<id>.jsonl.reset.<timestamp>`,
 * `.deleted.<timestamp>`, either with `.zst`), cold archives (`<sha256>.jsonl.zst`), the files its
 * upgrade moved aside (`<key>.<id>.jsonl.imported-<ms>`) and its agent database.
 */
const TRANSCRIPT_NAME = /\.(json|jsonl|md|markdown|txt|jsonl\.zst)$|\.jsonl\.(reset|deleted)\.[^/\\]+$|\.jsonl\.imported-\d+$|^openclaw-agent\.sqlite$/i;

/**
 * Files that sit beside transcripts in the exports but hold none: OpenClaw's session index, the
 * account, settings, manifest and project files of the ChatGPT and Claude.ai exports (Claude.ai's
 * `memories.json` is what the assistant noted about the person, not a conversation), the coding agents' indexes, prompt
 * logs and settings (Codex CLI's `~/.codex`, Gemini CLI's `~/.gemini`, Continue's `~/.continue`; Qwen Code's
 * project notes `meta.json`, `extract-cursor.json` and `memory/MEMORY.md`, and its `output-language.md`), the
 * task index and settings of Cline and its forks (their tasks are read from the task folders), and
 * Jan's `thread.json` (its title is read beside the thread's `messages.jsonl`).
 */
const COMPANION_FILES = new Set([
  'sessions.json',
  'user.json',
  'users.json',
  'user_settings.json',
  'export_manifest.json',
  'projects.json',
  'memories.json',
  'message_feedback.json',
  'model_comparisons.json',
  'shared_conversations.json',
  'taskhistory.json',
  'cline_mcp_settings.json',
  'mcp_settings.json',
  'custom_modes.json',
  'session_index.jsonl',
  'history.jsonl',
  'logs.json',
  'settings.json',
  'config.json',
  'auth.json',
  'oauth_creds.json',
  'google_accounts.json',
  'trustedfolders.json',
  'version.json',
  'models_cache.json',
  'thread.json',
  'meta.json',
  'extract-cursor.json',
  'memory.md',
  'output-language.md',
]);

/**
 * OpenClaw's trace of a session's runs beside its transcript (`<id>.trajectory.jsonl`, since 2026.5:
 * `session.started`, `context.compiled`, `prompt.submitted`, `model.completed`...): what the transcript
 * already holds, as the runtime saw it.
 */
const RUN_TRACE_NAME = /\.trajectory\.jsonl$/i;

export function isTranscriptFileName(baseName: string): boolean {
  return TRANSCRIPT_NAME.test(baseName) && !COMPANION_FILES.has(baseName.toLowerCase()) && !RUN_TRACE_NAME.test(baseName);
}

/** GitHub Copilot CLI's state beside a session's `events.jsonl`: its checkpoints' notes, the files its rewinds restore, and the session's own workspace folders (`files/`, `research/`). */
const COPILOT_SESSION_STATE = new Set(['checkpoints', 'rewind-file-snapshots', 'files', 'research']);

/** Cline's CLI keeps its settings, caches, locks and logs beside its `sessions/` and `db/` folders. */
const CLINE_CLI_STATE = new Set(['settings', 'cache', 'locks', 'logs']);

/**
 * A folder of a tool's own logs or state, which holds no conversation: Qwen Code's `debug/` (a text file
 * per run), told by the `projects/` folder and `installation_id` file beside it in Qwen Code's home,
 * GitHub Copilot CLI's state in a session's folder, told by the `events.jsonl` and `workspace.yaml` there,
 * Cline CLI's state in its data folder (`~/.cline/data`), told by the `sessions/` and `db/` there, and
 * the file changes of each session that opencode and Kilo's CLI keep in `storage/session_diff/` once
 * their sessions are in the database (told by the `migration` file beside it and no `message/` folder).
 * @param siblings the names of the entries of the folder that holds it.
 */
export function isToolLogFolder(name: string, siblings: ReadonlySet<string>): boolean {
  if (name === 'debug') return siblings.has('projects') && siblings.has('installation_id');
  if (name === 'session_diff') return siblings.has('migration') && !siblings.has('message');
  if (CLINE_CLI_STATE.has(name)) return siblings.has('sessions') && siblings.has('db');
  return COPILOT_SESSION_STATE.has(name) && siblings.has('events.jsonl') && siblings.has('workspace.yaml');
}

/**
 * Cline CLI's record of a session (`<sessionId>.json`: its process, model and title), and the summary
 * it keeps when it compacts the context (`<sessionId>.compaction.json`, named so in the CLI's code),
 * beside the session's messages (`<sessionId>.messages.json`), which are the conversation.
 * @param siblings the names of the entries of the folder that holds it.
 */
export function isSessionRecordBeside(name: string, siblings: ReadonlySet<string>): boolean {
  const stem = /^(.+?)(?:\.compaction)?\.json$/i.exec(name)?.[1];
  return stem !== undefined && !stem.endsWith('.messages') && siblings.has(`${stem}.messages.json`);
}

/**
 * opencode's database (`opencode.db`, `opencode-<channel>.db` for preview channels), the same database
 * of Kilo's CLI, a fork of opencode (`kilo.db`, `kilo-<channel>.db`), and Cursor's (`state.vscdb`);
 * their `-wal` and `-shm` companions are not read on their own.
 */
const DATABASE_NAME = /^(?:(?:opencode|kilo)(?:-[\w.-]+)?\.db|state\.vscdb)$/i;

export function isDatabaseFileName(baseName: string): boolean {
  return DATABASE_NAME.test(baseName);
}

export function isZipFileName(baseName: string): boolean {
  return /\.zip$/i.test(baseName);
}
