/** The demo host's options and what it keeps of each session (see inMemoryApi.ts). */
import type { Chunk, DeletedObjectRetention, SaveEvent, SaveMode, SaveReport, SessionInput, StoredMessage } from '../../../shared/domain.js';
import type { AssistantView, EventMap, EventName, MemoryApi, Settings, SourceView } from '../../../shared/ipc.js';

export interface InMemoryOptions {
  settings?: Partial<Settings>;
  /** This machine's name in the save history (default `demo-laptop`). */
  machine?: string;
  /** What the store's provider keeps of deleted objects, as Settings › Storage shows it (default: not said). */
  retention?: DeletedObjectRetention;
  now?: () => Date;
  /** Awaited between the progress steps of an import or a model download (tests hold it to look mid-way). */
  step?: () => Promise<void>;
  /** Models already on disk; choosing another "downloads" it with `onModelDownload` events. */
  downloadedModels?: string[];
  /** The assistants' folders "found" on the machine (default: a few demo ones). */
  sources?: SourceView[];
  /** The assistants Settings › Connect an assistant lists (default: a few demo ones). */
  assistants?: AssistantView[];
}

export interface SaveOptionsInMemory {
  mode?: SaveMode;
  syncDeletes?: boolean;
  dryRun?: boolean;
  /** When the save happens (seeding a history); defaults to `now()`. */
  at?: string;
  /** The machine that saved (seeding a shared store's history); defaults to this one. */
  machine?: string;
  /** Save a forgotten session on purpose, lifting its mark (as the engine's `unforget`). */
  unforget?: boolean;
}

export interface StoredSession {
  sessionId: string;
  title: string;
  source?: string;
  parentSessionId?: string;
  messages: StoredMessage[];
  chunks: Chunk[];
  vectors: Map<string, number[]>;
  archivedAt: string;
  lastSavedAt: string;
  history: SaveEvent[];
}

export interface StagedFile {
  fileId: string;
  name: string;
  bytes: Uint8Array;
}

export interface InMemoryHost {
  api: MemoryApi;
  /** Saves a transcript directly (to seed a store with a history). */
  save(input: SessionInput, options?: SaveOptionsInMemory): SaveReport;
  /** Pushes an event to the UI's listeners, as the host's progress reporting does. */
  emit<E extends EventName>(event: E, payload: EventMap[E]): void;
  readonly settings: Settings;
  sessionIds(): string[];
}

