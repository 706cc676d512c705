/**
 * The one contract between the UI and the engine host (Electron main, or the web-mode server).
 * Channels are `domain:verb`; each has a request and a response type and a runtime schema for the
 * request, which the host checks before doing anything (the UI is untrusted). Pushed events are `onX`.
 */
import * as z from 'zod';
import { CHANNEL_NAMES, EVENT_NAMES as EVENTS, type ChannelName } from './channels.js';
import type {
  DuplicateListing,
  ChunkDetail,
  DeletedObjectRetention,
  RecentWriter,
  SaveEvent,
  SaveProgress,
  SaveReport,
  SearchHit,
  SessionDetail,
  SessionSummary,
  VerifyResult,
} from './domain.js';
import { ASSISTANT_IDS, type AssistantId } from './assistants.js';
import { NEAR_DUPLICATE_FLOOR, SAVE_MODES } from './domain.js';
import type { ErrorInfo } from './errors.js';
import type { StoreKind } from './storeUri.js';

/** Most bytes one staged file may carry (a large ChatGPT export fits). */
export const MAX_STAGED_BYTES = 8 * 1024 * 1024 * 1024;
/** Most bytes a file sent whole (base64 in one request) may carry; larger ones are streamed or read from their path. */
export const MAX_INLINE_STAGED_BYTES = 256 * 1024 * 1024;

const id = z.string().min(1).max(512);
const include = z.array(z.enum(['tools', 'thinking'])).max(2).optional();

const similarityThreshold = z.number().min(NEAR_DUPLICATE_FLOOR).max(1);

export { ASSISTANT_IDS, type AssistantId } from './assistants.js';

export const requestSchemas = {
  'sessions:list': z.object({}).strict(),
  'sessions:show': z.object({ sessionId: id }).strict(),
  'sessions:history': z.object({ sessionId: id }).strict(),
  'chunks:inspect': z.object({ chunkId: id, similar: z.number().int().min(0).max(50).optional() }).strict(),
  /** Hands a file the user dropped or picked to the host; later requests refer to it by `fileId`. */
  'files:stage': z.object({ name: z.string().min(1).max(255), dataBase64: z.string().max(Math.ceil(MAX_INLINE_STAGED_BYTES / 3) * 4) }).strict(),
  /** A dry run of `import:run` with the same options: what each session would gain or lose. */
  'import:preview': z
    .object({ fileIds: z.array(id).min(1).max(100), include, mode: z.enum(SAVE_MODES as unknown as [string, ...string[]]).optional(), syncDeletes: z.boolean().optional() })
    .strict(),
  'import:run': z
    .object({
      fileIds: z.array(id).min(1).max(100),
      include,
      mode: z.enum(SAVE_MODES as unknown as [string, ...string[]]).optional(),
      syncDeletes: z.boolean().optional(),
      /** Only these sessions of the files (all when absent). */
      sessionIds: z.array(id).max(10_000).optional(),
      /** Sessions forgotten on some machine of this store that the person chose to save again, on purpose. */
      unforget: z.array(id).max(10_000).optional(),
    })
    .strict(),
  'import:cancel': z.object({}).strict(),
  'search:query': z.object({ query: z.string().min(1).max(2000), limit: z.number().int().min(1).max(200).optional(), sessionId: id.optional() }).strict(),
  'store:verify': z.object({ repair: z.boolean().optional() }).strict(),
  'sessions:forget': z
    .object({
      sessionIds: z.array(id).min(1).max(10_000),
      /** Only these messages of the one session named. */
      messageIds: z.array(id).min(1).max(100_000).optional(),
    })
    .strict(),
  'duplicates:list': z
    .object({
      /** Lowest similarity listed, NEAR_DUPLICATE_FLOOR to 1 (default DUPLICATE_THRESHOLD). */
      threshold: similarityThreshold.optional(),
      limit: z.number().int().min(1).max(1000).optional(),
      includeDismissed: z.boolean().optional(),
    })
    .strict(),
  'duplicates:dismiss': z.object({ clusterId: z.string().regex(/^[0-9a-f]{16}$/), threshold: similarityThreshold.optional() }).strict(),
  'settings:get': z.object({}).strict(),
  'app:openLogFolder': z.object({}).strict(),
  'settings:set': z
    .object({
      dataDir: z.string().min(1).max(4096).optional(),
      model: z.string().min(1).max(4096).optional(),
      language: z.enum(['en', 'zh-CN', 'system']).optional(),
      theme: z.enum(['light', 'dark', 'system']).optional(),
      redactSecrets: z.boolean().optional(),
    })
    .strict(),
  'sources:list': z.object({}).strict(),
  /** Turns a source on (its conversations are read and saved from then on) or off. */
  'sources:set': z.object({ id: z.string().min(1).max(128), enabled: z.boolean() }).strict(),
  /** Saves what is new in the sources that are on (or in the one named, if it is on) now. */
  'sources:sync': z.object({ id: z.string().min(1).max(128).optional() }).strict(),
  /** The machines that saved to the store in the last `days` days (default 30). */
  'store:writers': z.object({ days: z.number().int().min(1).max(3650).optional() }).strict(),
  /**
   * Points the app at another memory: a folder or a store URI. With `copy`, the current memory is
   * copied there first (the place must hold no memory yet).
   */
  'store:change': z.object({ to: z.string().min(1).max(4096), copy: z.boolean().optional() }).strict(),
  /** The assistants this computer has (their configuration folder exists) and whether each is connected to this memory. */
  'assistants:list': z.object({}).strict(),
  /** Writes this memory's MCP server and per-turn hook into the assistant's own configuration, or with `remove` takes them out. */
  'assistants:connect': z.object({ id: z.enum(ASSISTANT_IDS), remove: z.boolean().optional() }).strict(),
} as const satisfies Record<ChannelName, z.ZodType>;

export type Channel = keyof typeof requestSchemas;
// The `satisfies` above makes the schemas and CHANNEL_NAMES name the same channels.
export const CHANNELS: readonly Channel[] = CHANNEL_NAMES;

/** A damaged part of a file that an import leaves out (the rest of the file is imported). */
export interface SkippedPart {
  /** The conversation's id, for exports that hold many conversations. */
  session?: string;
  /** The 1-based line, for JSONL logs. */
  line?: number;
  error: string;
}

export interface FilePreview {
  fileId: string;
  name: string;
  format?: string;
  /** Set when the file cannot be imported; nothing of it is written. */
  error?: ErrorInfo;
  /** What a save would do to each session of the file (dry runs). */
  sessions: Array<SaveReport & { title?: string }>;
  /** Damaged conversations or lines that the import leaves out. */
  skipped?: SkippedPart[];
  /** Set when the file is not UTF-8: the encoding it is read in (`GB18030`, `UTF-16LE`, ...). */
  encoding?: string;
}

export interface ImportResult {
  files: Array<{ fileId: string; name: string; format?: string; error?: ErrorInfo; reports: SaveReport[]; skipped?: SkippedPart[] }>;
  cancelled: boolean;
}

export interface Settings {
  /** Where the memory lives, as the person chose it: a folder or a store URI. */
  dataDir: string;
  storage: StorageView;
  /** The model saves and searches use (the store's). */
  model: string;
  /** The model recorded in the store, if it has one yet. */
  storeModel: string | null;
  defaultModel: string;
  offlineModel: string;
  language: 'en' | 'zh-CN' | 'system';
  theme: 'light' | 'dark' | 'system';
  /** Replace well-known secrets (keys, tokens, passwords) with `[REDACTED:<kind>]` before storing. */
  redactSecrets: boolean;
  /** Whether the host can pick folders with a native dialog (the desktop app) or not (web mode). */
  nativeDialogs: boolean;
  /** The folder of the app's log (warnings, background failures, crashes), or null when the host keeps none. */
  logDir: string | null;
  /** How an assistant starts this store's MCP server (`session-memory mcp`), or null when the host cannot say. */
  mcpServer: McpLaunch | null;
  /** How an assistant's hook saves the conversation it names (`session-memory hook`), or null when the host cannot say. */
  hookCommand: McpLaunch | null;
}

/** Where the memory lives, as Settings › Storage shows it. */
export interface StorageView {
  kind: StoreKind;
  /** The folder, or the store's URI without its query. */
  display: string;
  /** This machine's folder for the memory: the folder itself, or for a store on object storage the one holding caches, the write lock, logs, sources' choices. */
  localDir: string;
  /** The memory is on object storage, where other machines may write too. */
  shared: boolean;
  /** This machine's name in the save history. */
  machine: string;
  /** Whether the store's provider keeps deleted objects, and so forgotten text (absent while unknown to the host). */
  retention?: DeletedObjectRetention;
}

/** A place on this machine where an assistant keeps conversations, as the Sources view shows it. */
export interface SourceView {
  id: string;
  tool: string;
  path: string;
  /** Conversation files (or databases) found there. */
  sessions: number;
  lastModified: string | null;
  /** Nothing is read from a source until a person turns it on. */
  enabled: boolean;
  /** Whether its format imports today; a source that does not is listed but not read. */
  imports: boolean;
  /** When it was last synced, ISO; null before its first sync. */
  lastSync: string | null;
  /** Sessions saved by the last sync that found something new. */
  sessionsSaved: number;
  /** What went wrong at the last sync, one line per file. */
  errors: string[];
}

/** A stdio MCP server's launch: what assistants' configurations name as command, args and env. */
export interface McpLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** An assistant as Settings › Connect an assistant shows it. */
export interface AssistantView {
  id: AssistantId;
  name: string;
  /** Its configuration folder exists on this computer. */
  found: boolean;
  /** Its configuration holds this memory's MCP server and hook, as this install writes them. */
  connected: boolean;
}

export interface ResponseMap {
  'sessions:list': SessionSummary[];
  'sessions:show': SessionDetail;
  'sessions:history': SaveEvent[];
  'chunks:inspect': ChunkDetail;
  'files:stage': { fileId: string; name: string; size: number };
  'import:preview': FilePreview[];
  'import:run': ImportResult;
  'import:cancel': { cancelled: boolean };
  'search:query': SearchHit[];
  'store:verify': VerifyResult;
  'sessions:forget': Array<{ sessionId: string; messagesRemoved: number; chunksRemoved: number }>;
  'duplicates:list': DuplicateListing;
  'duplicates:dismiss': { dismissed: number };
  'settings:get': Settings;
  /** `opened` is false where the host cannot open folders (web mode): the path is then shown. */
  'app:openLogFolder': { opened: boolean; path: string };
  'settings:set': Settings;
  'sources:list': SourceView[];
  'sources:set': SourceView[];
  'sources:sync': SourceView[];
  'store:writers': RecentWriter[];
  'store:change': Settings;
  'assistants:list': AssistantView[];
  'assistants:connect': AssistantView[];
}

export type RequestMap = { [C in Channel]: z.infer<(typeof requestSchemas)[C]> };

/** Events the host pushes to the UI. */
export interface EventMap {
  onSaveProgress: SaveProgress & { fileIndex: number; fileCount: number };
  onModelDownload: { file: string; loaded: number; total: number; status: string };
}
export type EventName = keyof EventMap;
export const EVENT_NAMES: readonly EventName[] = EVENTS;

/** What crosses the boundary: a value or an error with a code (Electron keeps only `message` of a thrown error). */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorInfo };

/** The API the UI sees: one function per channel, one subscription per event. */
export type MemoryApi = { [C in Channel]: (request: RequestMap[C]) => Promise<ResponseMap[C]> } & {
  on<E extends EventName>(event: E, listener: (payload: EventMap[E]) => void): () => void;
  /**
   * Stages a file the person dropped or picked without reading it into the page: the desktop app
   * sends its path (from the preload), web mode streams it as the request body. Absent where the
   * host has neither (the in-memory demo): then `files:stage` carries the bytes.
   */
  uploadFile?: (file: UploadableFile) => Promise<ResponseMap['files:stage']>;
};

/** What `uploadFile` is given: a browser File (typed here without the DOM). */
export interface UploadableFile {
  readonly name: string;
  readonly size: number;
}

/** The channel the desktop app's preload stages a dropped file through, by its path (not callable from the page). */
export const STAGE_PATH_CHANNEL = 'files:stagePath';
export const stagePathSchema = z.object({ path: z.string().min(1).max(32_768) }).strict();

/** Thrown by the UI-side client when the host answers with an error. */
export class MemoryApiError extends Error {
  constructor(
    readonly code: ErrorInfo['code'],
    message: string,
  ) {
    super(message);
    this.name = 'MemoryApiError';
  }
}

/** Builds the UI-side API from one transport function (IPC in the desktop app, HTTP in web mode). */
export function createMemoryApi(
  call: (channel: Channel, request: unknown) => Promise<Result<unknown>>,
  subscribe: (event: EventName, listener: (payload: unknown) => void) => () => void,
): MemoryApi {
  const api: Record<string, unknown> = {};
  for (const channel of CHANNELS) {
    api[channel] = async (request: unknown) => {
      const result = await call(channel, request);
      if (!result.ok) throw new MemoryApiError(result.error.code, result.error.message);
      return result.value;
    };
  }
  api.on = (event: EventName, listener: (payload: unknown) => void) => subscribe(event, listener);
  return api as MemoryApi;
}
