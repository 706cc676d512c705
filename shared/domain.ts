/**
 * The domain model shared by the engine, the CLI, the importers and the UI.
 * Plain data only: everything here crosses process and IPC boundaries unchanged.
 */

export type Role = 'user' | 'assistant' | 'system' | 'tool';
export const ROLES: readonly Role[] = ['user', 'assistant', 'system', 'tool'];

/** One message of a transcript, as given to a save. */
export interface MessageInput {
  /** Stable id from the source. When absent the engine derives one (see `deriveMessageId`). */
  msgId?: string;
  role: Role;
  content: string;
  /**
   * The name of who said it, where the transcript has one: a person in a chat between people, a
   * character (SillyTavern). Never a role's word ("User", "Assistant"): the role says that already.
   * The chunk text shows it in place of the role ("Caroline: I went ..."), so search can tell who said what.
   */
  speaker?: string;
  /** ISO 8601 time, when the source has one. */
  timestamp?: string;
}

/** A transcript to save: one conversation. */
export interface SessionInput {
  sessionId: string;
  title?: string;
  /** Where it came from: `json`, `chatgpt`, `claude`, `openclaw`, `open-webui`, `sillytavern`, `claude-code`, `markdown`, `grok`, `librechat`, `ai-studio`, `gemini`, `codex`, `gemini-cli`, `qwen-code`, `copilot-cli`, `antigravity`, `continue`, `cline`, `roo-code`, `kilo-code`, `aider`, `opencode`, `cursor`, `vscode-chat`, `lmstudio`, `jan`, `specstory`, `deepseek`, `chat-messages`. */
  source?: string;
  /** The session this one was started from: a Claude Code subagent's conversation names its main session. */
  parentSessionId?: string;
  messages: MessageInput[];
}

/** A message as the store keeps it. */
export interface StoredMessage {
  msgId: string;
  role: Role;
  content: string;
  /** Who said it, when the transcript names them (see MessageInput.speaker). */
  speaker?: string;
  /** sha256 of role, content and speaker (when named), hex. Any difference in content changes it. */
  contentHash: string;
  timestamp?: string;
  /** Position in the conversation (input order of the save that wrote it). */
  seq: number;
  /** The chunks holding this message, in order (a long message spans several). */
  chunkIds: string[];
}

/** A piece of dialogue that was embedded and can be found by search. */
export interface Chunk {
  chunkId: string;
  sessionId: string;
  text: string;
  /** Every message whose text (or a part of it) is in this chunk, in order. */
  msgIds: string[];
  createdAt: string;
}

export type SaveMode = 'incremental' | 'overwrite' | 'skip-if-archived';
export const SAVE_MODES: readonly SaveMode[] = ['incremental', 'overwrite', 'skip-if-archived'];

export interface SaveOptions {
  mode?: SaveMode;
  /** Remove stored messages that are absent from the input, with their chunks. */
  syncDeletes?: boolean;
  /** Compute the report without writing anything (an import preview). */
  dryRun?: boolean;
  /** Replace well-known secrets (keys, tokens, passwords) with `[REDACTED:<kind>]` before storing. Default true. */
  redact?: boolean;
  /**
   * Save the session even if it was forgotten, and lift its forgotten mark: a person saving it again
   * on purpose. Without it, a forgotten session is left out (the report says `forgotten`).
   */
  unforget?: boolean;
}

/** What one save did. The CLI's `save --json` prints exactly these fields. */
export interface SaveReport {
  sessionId: string;
  mode: SaveMode;
  /** True when the whole session was recognised as already archived and nothing was processed. */
  skippedSession: boolean;
  /** Messages in the input (after removing repeated ids). */
  total: number;
  new: number;
  updated: number;
  skipped: number;
  deleted: number;
  chunksWritten: number;
  chunksDeleted: number;
  /** The chunks written (the CLI's reports; empty in the app's, which show none of them). */
  chunkIds: string[];
  embeddingsComputed: number;
  /** Leading messages this session shares with the archived session it branched from (0: none; see ForkOf). */
  sharedMessages: number;
  /** Secrets replaced with `[REDACTED:<kind>]` in this input (0 when redaction is off). */
  redacted: number;
  /**
   * Chunks this save wrote whose text another session already holds, the same or nearly (similarity
   * >= 0.95), leaving out the sessions it branched from: what `duplicates` lists for review.
   */
  nearDuplicates: number;
  durationMs: number;
  warnings: string[];
  dryRun?: boolean;
  /** The session was forgotten on some machine of this store: nothing was saved (save it with `unforget` to bring it back). */
  forgotten?: boolean;
}

/** A report with nothing counted yet: every save starts from this. */
export function emptySaveReport(sessionId: string, mode: SaveMode, total: number, warnings: string[] = [], dryRun = false): SaveReport {
  return {
    sessionId,
    mode,
    skippedSession: false,
    total,
    new: 0,
    updated: 0,
    skipped: 0,
    deleted: 0,
    chunksWritten: 0,
    chunksDeleted: 0,
    chunkIds: [],
    embeddingsComputed: 0,
    sharedMessages: 0,
    redacted: 0,
    nearDuplicates: 0,
    durationMs: 0,
    warnings,
    ...(dryRun ? { dryRun: true } : {}),
  };
}

/** One entry of the archive record: a fast path that says what a session holds. */
export interface ArchiveEntry {
  session_id: string;
  title?: string;
  source?: string;
  parent_session_id?: string;
  archived_at: string;
  last_saved_at: string;
  message_count: number;
  chunk_count: number;
  /** First and last message id of the conversation, in order. */
  msg_range: [string, string] | [];
  /** sha256 over the ordered (msgId, contentHash) pairs of the stored messages. */
  fingerprint: string;
  /**
   * sha256 of the last input this session was saved from, as given (before checks and redaction),
   * with the options that shape the result: the same input again is recognised without reading it.
   */
  input_fingerprint?: string;
  /** Messages in that input (after repeated ids were dropped): a re-save of it reports this total. */
  input_total?: number;
  /** Content hashes of the first FORK_MIN_SHARED messages, in order: what finds the sessions a new one may branch from. */
  head_key?: string;
  /** The archived session this one shares its longest leading run of messages with (a branch, a resumed or cloned chat). */
  fork_of?: { session_id: string; shared_messages: number };
}

/** Leading messages two sessions must share (same role and content) for one to count as branched from the other. */
export const FORK_MIN_SHARED = 4;

/** Where a session branched from: the session it shares its first `sharedMessages` messages with. */
export interface ForkOf {
  sessionId: string;
  sharedMessages: number;
}

/** Lowest cosine similarity at which two chunks of different sessions are kept as near duplicates. */
export const NEAR_DUPLICATE_FLOOR = 0.9;
/** Default similarity from which `duplicates` lists a pair, and from which a save counts one. */
export const DUPLICATE_THRESHOLD = 0.95;

/** A chunk of a near-duplicate cluster. */
export interface DuplicateChunk {
  chunkId: string;
  sessionId: string;
  sessionTitle: string;
  text: string;
}

/** Chunks of different sessions holding the same text or nearly (linked by pairs at or above the threshold). */
export interface DuplicateCluster {
  /** Stable while the cluster's chunks stay the same: what dismissing it names. */
  id: string;
  /** The lowest similarity among the pairs that link the cluster (1: the same text). */
  similarity: number;
  chunks: DuplicateChunk[];
  /** Listed although dismissed (only when asked for dismissed ones too). */
  dismissed?: boolean;
}

export interface DuplicateListing {
  threshold: number;
  /** Clusters at this threshold that are not dismissed (the list holds the first `limit`). */
  total: number;
  /** Clusters dismissed earlier, not counted in `total`. */
  dismissed: number;
  clusters: DuplicateCluster[];
}

/** One line of the save history. */
export interface SaveEvent {
  sessionId: string;
  at: string;
  mode: SaveMode;
  syncDeletes: boolean;
  skippedSession: boolean;
  /** Set on the event that records a session was forgotten (its counts are what was removed). */
  forgotten?: boolean;
  total: number;
  new: number;
  updated: number;
  skipped: number;
  deleted: number;
  chunksWritten: number;
  chunksDeleted: number;
  chunkIdsWritten: string[];
  chunkIdsRemoved: string[];
  embeddingsComputed: number;
  /** Secrets replaced before storing (absent in events written before redaction existed). */
  redacted?: number;
  durationMs: number;
  model: string;
  /** The machine that saved (its host name, or SESSION_MEMORY_MACHINE); absent in events from before shared stores. */
  machine?: string;
}

/** A machine that saved to the store lately, from the save history. */
export interface RecentWriter {
  machine: string;
  /** Its latest save, ISO. */
  lastAt: string;
  /** Its saves (history events) in the period asked about. */
  saves: number;
}

export interface SessionSummary {
  sessionId: string;
  title: string;
  source?: string;
  /** The session this one was started from (a Claude Code subagent's main session). */
  parentSessionId?: string;
  /** The archived session this one branched from, or null. */
  forkOf: ForkOf | null;
  messageCount: number;
  chunkCount: number;
  archivedAt: string;
  lastSavedAt: string;
  saves: number;
}

export interface SessionDetail {
  sessionId: string;
  title?: string;
  source?: string;
  /** The archived session this one branched from, with its title. */
  forkOf?: ForkOf & { title: string };
  messages: Array<{ msgId: string; role: Role; content: string; speaker?: string; contentHash: string; chunkId: string; timestamp?: string }>;
  chunks: Array<{ chunkId: string; text: string; msgIds: string[]; createdAt: string }>;
}

export interface ChunkDetail extends Chunk {
  model: string;
  vector: number[];
  /** The most similar chunks in other places of the store (near-duplicates show up here). */
  similar: SearchHit[];
}

/** Another stored copy of a search result's text (identical, or nearly: the same words, and cosine similarity >= 0.97). */
export interface AlsoIn {
  sessionId: string;
  chunkId: string;
}

export interface SearchHit {
  chunkId: string;
  sessionId: string;
  text: string;
  score: number;
  msgIds: string[];
  /** The other copies of this memory that the search found, collapsed into this result. */
  alsoIn: AlsoIn[];
}

export interface VerifyResult {
  ok: boolean;
  sessions: number;
  messages: number;
  chunks: number;
  problems: string[];
  /** Whether the store's provider keeps deleted objects (and so forgotten text) for a while. */
  retention?: DeletedObjectRetention;
}

/**
 * Whether the place a store lives keeps what forgetting deletes: S3 bucket versioning, Google Cloud
 * Storage soft delete, Azure blob soft delete. `none`: a local folder; `off`: the provider was asked
 * and keeps nothing; `on`/`suspended`: it keeps deleted objects (for `days`, when a rule says so);
 * `unknown`: it could not be asked.
 */
export interface DeletedObjectRetention {
  state: 'none' | 'off' | 'on' | 'suspended' | 'unknown';
  /** Days deleted objects are kept, when the provider says. */
  days?: number;
  /** What it means for forgotten text, and how to turn it off, in words a person reads. */
  message: string;
}

/** What `maintain` did: the vector index built (when the store had outgrown a flat scan), and the compaction. */
export interface MaintenanceReport {
  vectorIndexBuilt: boolean;
  vectorIndexMs: number;
  compactMs: number;
  chunks: number;
}

/** Progress of a long save, for progress bars. */
export interface SaveProgress {
  sessionId: string;
  phase: 'reading' | 'chunking' | 'embedding' | 'writing' | 'done';
  done: number;
  total: number;
}
