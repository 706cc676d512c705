/**
 * Which files in a folder (or a ZIP archive) are worth opening. Files the person names directly are
 * always read and recognised by content; this is only for expanding folders and archives, where
 * reading every file (images, databases...) would bury the real errors in noise.
 */

/** `.json`, `.jsonl`, Markdown and text, and OpenClaw's archived sessions (`<id>.jsonl.reset.<timestamp>`). */
const TRANSCRIPT_NAME = /\.(json|jsonl|md|markdown|txt)$|\.jsonl\.reset\.[^/\\]+$/i;

/**
 * Files that sit beside transcripts in the exports but hold none: OpenClaw's session index, the
 * account and project files of the ChatGPT and Claude.ai exports, and the coding agents' indexes,
 * prompt logs and settings (Codex CLI's `~/.codex`, Gemini CLI's `~/.gemini`, Continue's `~/.continue`).
 */
const COMPANION_FILES = new Set([
  'sessions.json',
  'user.json',
  'users.json',
  'projects.json',
  'message_feedback.json',
  'model_comparisons.json',
  'shared_conversations.json',
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
]);

export function isTranscriptFileName(baseName: string): boolean {
  return TRANSCRIPT_NAME.test(baseName) && !COMPANION_FILES.has(baseName.toLowerCase());
}

export function isZipFileName(baseName: string): boolean {
  return /\.zip$/i.test(baseName);
}
