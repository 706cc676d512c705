/**
 * A whole `MemoryApi` over in-memory data: the same channels, request schemas, error codes and events as the
 * real host, with a toy engine behind them (JSON and Markdown files only, hashed character n-grams instead of a
 * neural embedding). The component tests run the UI against it, and the `?mock` demo build shows it; the
 * shipping app never loads it.
 */
import type { Chunk, SaveMode, SaveReport, SearchHit, SessionInput, StoredMessage } from '../../../shared/domain.js';
import { emptySaveReport, type ForkOf } from '../../../shared/domain.js';
import { DEMO_SOURCES, ToySources } from './toySources.js';
import { DEMO_ASSISTANTS, ToyAssistants } from './toyAssistants.js';
import { bytesFromBase64, chunkMessages, cosine, forkAmong, HostError, parseTranscriptFile, stableHash, toyEmbedding } from './toyEngine.js';
import { ToyDuplicates } from './toyDuplicates.js';
import { DEMO_MACHINE, storageViewOf, toyStorageHandlers } from './toyStorage.js';

export { EMBEDDING_DIMENSIONS, HostError, parseTranscriptFile, stableHash, toyEmbedding } from './toyEngine.js';
import {
  createMemoryApi,
  requestSchemas,
  type Channel,
  type EventMap,
  type EventName,
  type FilePreview,
  type ImportResult,
  type RequestMap,
  type ResponseMap,
  type Settings,
} from '../../../shared/ipc.js';

type Handlers = { [C in Channel]: (request: RequestMap[C]) => Promise<ResponseMap[C]> };

import type { InMemoryHost, InMemoryOptions, SaveOptionsInMemory, StagedFile, StoredSession } from './inMemoryTypes.js';

export type { InMemoryHost, InMemoryOptions, SaveOptionsInMemory } from './inMemoryTypes.js';

export function createInMemoryApi(options: InMemoryOptions = {}): InMemoryHost {
  const now = options.now ?? (() => new Date());
  const step = options.step ?? (() => new Promise<void>((resolve) => setTimeout(resolve, 0)));
  const downloaded = new Set(options.downloadedModels ?? []);
  const settings: Settings = {
    dataDir: '/home/demo/.session-memory',
    storage: { ...storageViewOf(options.settings?.dataDir ?? '/home/demo/.session-memory', options.machine ?? DEMO_MACHINE), ...(options.retention ? { retention: options.retention } : {}) },
    model: 'Xenova/multilingual-e5-small',
    storeModel: null,
    defaultModel: 'Xenova/multilingual-e5-small',
    offlineModel: 'use-lite-en',
    language: 'system',
    theme: 'system',
    redactSecrets: true,
    nativeDialogs: false,
    logDir: '/home/demo/.session-memory/logs',
    mcpServer: { command: 'session-memory', args: ['--data', '/home/demo/.session-memory', 'mcp'], env: {} },
    hookCommand: { command: 'session-memory', args: ['--data', '/home/demo/.session-memory', 'hook'], env: {} },
    ...options.settings,
  };
  downloaded.add(settings.offlineModel);
  const sessions = new Map<string, StoredSession>();
  const staged = new Map<string, StagedFile>();
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  let stagedCount = 0;
  let running: { cancelled: boolean } | null = null;

  const emit = <E extends EventName>(event: E, payload: EventMap[E]): void => {
    for (const listener of listeners.get(event) ?? []) listener(payload);
  };

  const requireSession = (sessionId: string): StoredSession => {
    const session = sessions.get(sessionId);
    if (!session) throw new HostError('not_found', `No archived session "${sessionId}".`);
    return session;
  };

  /** Sessions forgotten whole: not saved again unless on purpose. */
  const forgotten = new Set<string>();
  const save = (input: SessionInput, saveOptions: SaveOptionsInMemory = {}): SaveReport => {
    const mode = saveOptions.mode ?? 'incremental';
    // As the engine: a forgotten session is left out unless it is saved on purpose, which lifts its mark.
    if (forgotten.has(input.sessionId)) {
      if (!saveOptions.unforget) return { ...emptySaveReport(input.sessionId, mode, 0, [], Boolean(saveOptions.dryRun)), forgotten: true };
      if (!saveOptions.dryRun) forgotten.delete(input.sessionId);
    }
    const at = saveOptions.at ?? now().toISOString();
    const existing = sessions.get(input.sessionId);
    const seen = new Set<string>();
    const incoming: StoredMessage[] = [];
    input.messages.forEach((message, index) => {
      const msgId = message.msgId ?? `m-${stableHash(`${index}\n${message.role}\n${message.content}`).slice(0, 12)}`;
      if (seen.has(msgId)) return;
      seen.add(msgId);
      const contentHash = stableHash(`${message.role}\n${message.content}`);
      incoming.push({ msgId, role: message.role, content: message.content, ...(message.speaker ? { speaker: message.speaker } : {}), contentHash, timestamp: message.timestamp, seq: incoming.length, chunkIds: [] });
    });
    const report: SaveReport = emptySaveReport(input.sessionId, mode, incoming.length, [], Boolean(saveOptions.dryRun));
    const storedById = new Map((existing?.messages ?? []).map((message) => [message.msgId, message]));
    const fingerprint = (list: StoredMessage[]): string => list.map((message) => `${message.msgId}:${message.contentHash}`).join('|');
    if (existing && (mode === 'skip-if-archived' || (mode === 'incremental' && fingerprint(existing.messages) === fingerprint(incoming)))) {
      return { ...report, skippedSession: true, skipped: incoming.length, chunkIds: existing.chunks.map((chunk) => chunk.chunkId), durationMs: 1 };
    }
    for (const message of incoming) {
      const stored = storedById.get(message.msgId);
      if (!stored) report.new++;
      else if (stored.contentHash !== message.contentHash) report.updated++;
      else report.skipped++;
    }
    const removing = mode === 'overwrite' || saveOptions.syncDeletes ? (existing?.messages ?? []).filter((message) => !seen.has(message.msgId)) : [];
    report.deleted = removing.length;

    let finalMessages: StoredMessage[];
    if (mode === 'overwrite' || !existing) {
      finalMessages = incoming;
    } else {
      const removed = new Set(removing.map((message) => message.msgId));
      const incomingById = new Map(incoming.map((message) => [message.msgId, message]));
      finalMessages = existing.messages.filter((message) => !removed.has(message.msgId)).map((message) => ({ ...(incomingById.get(message.msgId) ?? message), chunkIds: [] }));
      finalMessages.push(...incoming.filter((message) => !storedById.has(message.msgId)));
    }
    finalMessages = finalMessages.map((message, seq) => ({ ...message, seq, chunkIds: [] }));
    const previousChunks = new Map((existing?.chunks ?? []).map((chunk) => [chunk.chunkId, chunk]));
    const chunks = chunkMessages(input.sessionId, finalMessages, at, previousChunks);
    const keep = mode === 'overwrite' ? new Set<string>() : new Set(chunks.map((chunk) => chunk.chunkId).filter((chunkId) => previousChunks.has(chunkId)));
    const written = chunks.filter((chunk) => !keep.has(chunk.chunkId));
    const removedChunks = [...previousChunks.keys()].filter((chunkId) => !keep.has(chunkId));
    report.chunksWritten = written.length;
    report.chunksDeleted = removedChunks.length;
    report.embeddingsComputed = written.length;
    report.chunkIds = chunks.map((chunk) => chunk.chunkId);
    report.durationMs = 4 + written.length * 9;
    if (saveOptions.dryRun) return report;

    const vectors = new Map<string, number[]>();
    for (const chunk of chunks) vectors.set(chunk.chunkId, existing?.vectors.get(chunk.chunkId) ?? toyEmbedding(chunk.text));
    const history = existing?.history ?? [];
    history.push({
      sessionId: input.sessionId,
      at,
      mode,
      syncDeletes: saveOptions.syncDeletes ?? false,
      skippedSession: false,
      total: report.total,
      new: report.new,
      updated: report.updated,
      skipped: report.skipped,
      deleted: report.deleted,
      chunksWritten: report.chunksWritten,
      chunksDeleted: report.chunksDeleted,
      chunkIdsWritten: written.map((chunk) => chunk.chunkId),
      chunkIdsRemoved: removedChunks,
      embeddingsComputed: report.embeddingsComputed,
      durationMs: report.durationMs,
      model: settings.model,
      machine: saveOptions.machine ?? settings.storage.machine,
    });
    sessions.set(input.sessionId, {
      sessionId: input.sessionId,
      title: input.title ?? existing?.title ?? input.sessionId,
      source: input.source ?? existing?.source,
      ...((input.parentSessionId ?? existing?.parentSessionId) ? { parentSessionId: input.parentSessionId ?? existing?.parentSessionId } : {}),
      messages: finalMessages,
      chunks,
      vectors,
      archivedAt: existing?.archivedAt ?? at,
      lastSavedAt: at,
      history,
    });
    settings.storeModel ??= settings.model;
    const writtenIds = new Set(written.map((chunk) => chunk.chunkId));
    report.nearDuplicates = duplicates.countOf(writtenIds);
    return report;
  };

  const readStaged = (fileId: string): StagedFile => {
    const file = staged.get(fileId);
    if (!file) throw new HostError('not_found', `No staged file "${fileId}"; drop it again.`);
    return file;
  };

  const allChunks = (): Array<{ chunk: Chunk; vector: number[] }> =>
    [...sessions.values()].flatMap((session) => session.chunks.map((chunk) => ({ chunk, vector: session.vectors.get(chunk.chunkId) ?? [] })));

  const hit = (chunk: Chunk, score: number): SearchHit => ({ chunkId: chunk.chunkId, sessionId: chunk.sessionId, text: chunk.text, score: Math.round(score * 1000) / 1000, msgIds: chunk.msgIds, alsoIn: [] });

  const downloadModel = async (model: string): Promise<void> => {
    const files = ['config.json', 'tokenizer.json', 'onnx/model_quantized.onnx'];
    for (const file of files) {
      const total = file.endsWith('.onnx') ? 118_000_000 : 700_000;
      for (let part = 0; part <= 4; part++) {
        emit('onModelDownload', { file: `${model}/${file}`, loaded: Math.round((total * part) / 4), total, status: part === 4 ? 'done' : 'progress' });
        await step();
      }
    }
    downloaded.add(model);
    emit('onModelDownload', { file: model, loaded: 1, total: 1, status: 'ready' });
  };

  const forkOf = (session: StoredSession): ForkOf | null => forkAmong(session, sessions.values());

  const duplicates = new ToyDuplicates(
    () => allChunks().map(({ chunk, vector }) => ({ ...chunk, vector })),
    (a, b) => forkOf(requireSession(a))?.sessionId === b || forkOf(requireSession(b))?.sessionId === a,
    (sessionId) => requireSession(sessionId).title,
  );

  const sources = new ToySources(options.sources ?? DEMO_SOURCES, now);
  const assistants = new ToyAssistants(options.assistants ?? DEMO_ASSISTANTS);

  const handlers: Handlers = {
    'sources:list': async () => sources.list(),
    'sources:set': async ({ id, enabled }) => sources.setEnabled(id, enabled),
    'sources:sync': async ({ id }) => sources.sync(id),
    'assistants:list': async () => assistants.list(),
    'assistants:connect': async ({ id, remove }) => assistants.connect(id, Boolean(remove)),
    'sessions:list': async () =>
      [...sessions.values()].map((session) => ({
        sessionId: session.sessionId,
        title: session.title,
        source: session.source,
        ...(session.parentSessionId ? { parentSessionId: session.parentSessionId } : {}),
        forkOf: forkOf(session),
        messageCount: session.messages.length,
        chunkCount: session.chunks.length,
        archivedAt: session.archivedAt,
        lastSavedAt: session.lastSavedAt,
        saves: session.history.length,
      })),
    'sessions:show': async ({ sessionId }) => {
      const session = requireSession(sessionId);
      const fork = forkOf(session);
      return {
        sessionId,
        title: session.title,
        source: session.source,
        ...(fork ? { forkOf: { ...fork, title: requireSession(fork.sessionId).title } } : {}),
        messages: session.messages.map((message) => ({
          msgId: message.msgId,
          role: message.role,
          content: message.content,
          ...(message.speaker ? { speaker: message.speaker } : {}),
          contentHash: message.contentHash,
          chunkId: message.chunkIds[0] ?? '',
          ...(message.timestamp ? { timestamp: message.timestamp } : {}),
        })),
        chunks: session.chunks.map(({ chunkId, text, msgIds, createdAt }) => ({ chunkId, text, msgIds, createdAt })),
      };
    },
    'sessions:history': async ({ sessionId }) => requireSession(sessionId).history.map((event) => ({ ...event })),
    'chunks:inspect': async ({ chunkId, similar }) => {
      const all = allChunks();
      const found = all.find((entry) => entry.chunk.chunkId === chunkId);
      if (!found) throw new HostError('not_found', `No chunk "${chunkId}".`);
      const neighbours = all
        .filter((entry) => entry.chunk.chunkId !== chunkId)
        .map((entry) => hit(entry.chunk, cosine(found.vector, entry.vector)))
        .sort((a, b) => b.score - a.score)
        .slice(0, similar ?? 5);
      return { ...found.chunk, model: requireSession(found.chunk.sessionId).history.at(-1)?.model ?? settings.model, vector: found.vector, similar: neighbours };
    },
    'files:stage': async ({ name, dataBase64 }) => {
      let bytes: Uint8Array;
      try {
        bytes = bytesFromBase64(dataBase64);
      } catch {
        throw new HostError('invalid_request', `${name}: the file data is not base64.`);
      }
      const fileId = `file-${++stagedCount}`;
      staged.set(fileId, { fileId, name, bytes });
      return { fileId, name, size: bytes.length };
    },
    'import:preview': async ({ fileIds }) =>
      fileIds.map((fileId): FilePreview => {
        const file = readStaged(fileId);
        try {
          const { format, sessions: inputs, skipped } = parseTranscriptFile(file.name, file.bytes);
          const preview = (input: SessionInput): SaveReport => {
            const report = save(input, { dryRun: true });
            return report.forgotten ? { ...save(input, { dryRun: true, unforget: true }), forgotten: true } : report;
          };
          return { fileId, name: file.name, format, sessions: inputs.map((input) => ({ ...preview(input), title: input.title ?? input.sessionId })), ...(skipped?.length ? { skipped } : {}) };
        } catch (error) {
          if (!(error instanceof HostError)) throw error;
          return { fileId, name: file.name, error: { code: error.code, message: error.message }, sessions: [] };
        }
      }),
    'import:run': async ({ fileIds, mode, syncDeletes, sessionIds, unforget }) => {
      if (running) throw new HostError('locked', 'An import is already running.');
      const job = { cancelled: false };
      running = job;
      const result: ImportResult = { files: [], cancelled: false };
      try {
        for (const [fileIndex, fileId] of fileIds.entries()) {
          const file = readStaged(fileId);
          let parsed: ReturnType<typeof parseTranscriptFile>;
          try {
            parsed = parseTranscriptFile(file.name, file.bytes);
          } catch (error) {
            if (!(error instanceof HostError)) throw error;
            result.files.push({ fileId, name: file.name, error: { code: error.code, message: error.message }, reports: [] });
            continue;
          }
          const entry: ImportResult['files'][number] = { fileId, name: file.name, format: parsed.format, reports: [], ...(parsed.skipped?.length ? { skipped: parsed.skipped } : {}) };
          result.files.push(entry);
          const chosen = parsed.sessions.filter((input) => !sessionIds || sessionIds.includes(input.sessionId));
          for (const input of chosen) {
            const onPurpose = unforget?.includes(input.sessionId) ? { unforget: true } : {};
            const plan = save(input, { mode: mode as SaveMode | undefined, syncDeletes, dryRun: true, ...onPurpose });
            const progress = (phase: EventMap['onSaveProgress']['phase'], done: number, total: number): void =>
              emit('onSaveProgress', { sessionId: input.sessionId, phase, done, total, fileIndex, fileCount: fileIds.length });
            const steps: Array<[EventMap['onSaveProgress']['phase'], number, number]> = [
              ['reading', 0, plan.total],
              ['chunking', plan.total, plan.total],
              ...Array.from({ length: plan.embeddingsComputed + 1 }, (_, done): [EventMap['onSaveProgress']['phase'], number, number] => ['embedding', done, plan.embeddingsComputed]),
              ['writing', plan.chunksWritten, plan.chunksWritten],
            ];
            for (const [phase, done, total] of plan.skippedSession ? [] : steps) {
              progress(phase, done, total);
              await step();
              if (job.cancelled) {
                result.cancelled = true;
                return result;
              }
            }
            entry.reports.push(save(input, { mode: mode as SaveMode | undefined, syncDeletes, ...onPurpose }));
            progress('done', plan.total, plan.total);
          }
        }
        return result;
      } finally {
        running = null;
      }
    },
    'import:cancel': async () => {
      if (!running) return { cancelled: false };
      running.cancelled = true;
      return { cancelled: true };
    },
    'search:query': async ({ query, limit, sessionId }) => {
      // Toy relevance: vector similarity blended with the share of query words the text contains.
      const queryVector = toyEmbedding(query);
      const words = (query.toLowerCase().match(/[\p{Script=Han}]+|[\p{L}\p{N}]{2,}/gu) ?? []).filter(Boolean);
      return allChunks()
        .filter((entry) => !sessionId || entry.chunk.sessionId === sessionId)
        .map((entry) => {
          const text = entry.chunk.text.toLowerCase();
          const present = words.length ? words.filter((word) => text.includes(word)).length / words.length : 0;
          const similarity = Math.min(1, 2 * Math.max(0, cosine(queryVector, entry.vector)));
          return hit(entry.chunk, 0.5 * similarity + 0.5 * present);
        })
        .filter((found) => found.score >= 0.2)
        .sort((a, b) => b.score - a.score)
        .reduce<SearchHit[]>((kept, found) => {
          // Each memory once: a copy of a better result's text joins it.
          const same = kept.find((k) => k.text === found.text);
          if (same) same.alsoIn.push({ sessionId: found.sessionId, chunkId: found.chunkId });
          else kept.push(found);
          return kept;
        }, [])
        .slice(0, limit ?? 20);
    },
    'store:verify': async () => ({
      ok: true,
      sessions: sessions.size,
      messages: [...sessions.values()].reduce((sum, session) => sum + session.messages.length, 0),
      chunks: allChunks().length,
      problems: [],
    }),
    'sessions:forget': async ({ sessionIds, messageIds }) => {
      for (const id of sessionIds) requireSession(id);
      return sessionIds.map((sessionId) => {
        const session = requireSession(sessionId);
        if (!messageIds) {
          sessions.delete(sessionId);
          forgotten.add(sessionId);
          return { sessionId, messagesRemoved: session.messages.length, chunksRemoved: session.chunks.length };
        }
        const remaining = session.messages.filter((m) => !messageIds.includes(m.msgId));
        if (remaining.length === 0) {
          sessions.delete(sessionId);
          return { sessionId, messagesRemoved: session.messages.length, chunksRemoved: session.chunks.length };
        }
        const report = save({ sessionId, title: session.title, messages: remaining.map(({ msgId, role, content }) => ({ msgId, role, content })) }, { syncDeletes: true });
        return { sessionId, messagesRemoved: report.deleted, chunksRemoved: report.chunksDeleted };
      });
    },
    'duplicates:list': async (request) => duplicates.list(request),
    'duplicates:dismiss': async ({ clusterId, threshold }) => duplicates.dismiss(clusterId, threshold),
    'settings:get': async () => ({ ...settings }),
    'app:openLogFolder': async () => ({ opened: settings.nativeDialogs, path: settings.logDir ?? `${settings.dataDir}/logs` }),
    'settings:set': async (change) => {
      const storage = change.dataDir !== undefined ? storageViewOf(change.dataDir, settings.storage.machine) : settings.storage;
      if (change.model !== undefined && change.model !== settings.model) {
        if (settings.storeModel && sessions.size > 0 && change.model !== settings.storeModel) {
          throw new HostError(
            'model_mismatch',
            `This store was embedded with ${settings.storeModel}; vectors of ${change.model} cannot be searched with them. Choose an empty data directory to use another model.`,
          );
        }
        if (!downloaded.has(change.model) && !/^(\/|\.|[A-Za-z]:[\\/])/.test(change.model)) void downloadModel(change.model);
        settings.model = change.model;
      }
      if (change.dataDir !== undefined) settings.dataDir = change.dataDir;
      settings.storage = storage;
      if (change.redactSecrets !== undefined) settings.redactSecrets = change.redactSecrets;
      if (change.language) settings.language = change.language;
      if (change.theme) settings.theme = change.theme;
      return { ...settings };
    },
    ...toyStorageHandlers(settings, () => [...sessions.values()].flatMap((session) => session.history), now),
  };

  const api = createMemoryApi(
    async (channel, request) => {
      const parsed = requestSchemas[channel].safeParse(request);
      if (!parsed.success) return { ok: false, error: { code: 'invalid_request', message: `${channel}: ${parsed.error.issues[0]?.message ?? 'invalid request'}` } };
      try {
        const handler = handlers[channel] as (request: unknown) => Promise<unknown>;
        // Only plain copies cross, as over IPC or HTTP.
        return { ok: true, value: structuredClone(await handler(structuredClone(parsed.data))) };
      } catch (error) {
        if (error instanceof HostError) return { ok: false, error: { code: error.code, message: error.message } };
        return { ok: false, error: { code: 'internal', message: error instanceof Error ? error.message : String(error) } };
      }
    },
    (event, listener) => {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener);
      return () => set.delete(listener);
    },
  );

  return { api, save, emit, settings, sessionIds: () => [...sessions.keys()] };
}
