/**
 * The Model Context Protocol server: assistants (Claude Desktop, Claude Code, Cursor, OpenClaw, ...)
 * recall and save memory through four tools. It runs on the same store as the CLI and the app:
 * reads never wait for the write lock (a save by the app goes on meanwhile), and `save_session`
 * takes it like any other writer. Tools answer readable text plus the same data as structured content;
 * a bad call gets an error result with one line, and the server goes on serving.
 */
import { existsSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import type { SaveMode, SaveReport, SearchHit, SessionInput, SessionSummary } from '../../shared/domain.js';
import { SAVE_MODES } from '../../shared/domain.js';
import type { Logger, MemoryEngine } from '../engine/engine.js';
import { EngineError } from '../engine/errors.js';
import type { SkippedPart } from '../importers/index.js';
import { ToolServer } from './toolServer.js';

/**
 * The engine's, the store's and the importers' code (LanceDB, the embedding runtime: about a second
 * to load), loaded on the first tool call or in the background after the handshake. A client that
 * starts the server with its session (Codex) sends its first request to the model as soon as the
 * handshake is done: a handshake that waited for this code would leave the memory tools out of the
 * session's first turn.
 */
let engineCode: Promise<{
  MemoryEngine: typeof import('../engine/engine.js').MemoryEngine;
  ChunkStore: typeof import('../engine/store/index.js').ChunkStore;
  normalizeSession: typeof import('../engine/save/index.js').normalizeSession;
  readTranscripts: typeof import('../importers/index.js').readTranscripts;
  incompleteSessions: typeof import('../importers/index.js').incompleteSessions;
  sourceTraces: typeof import('../sources/forgottenSessions.js').sourceTraces;
}> | null = null;

function loadEngineCode(): NonNullable<typeof engineCode> {
  engineCode ??= Promise.all([import('../engine/engine.js'), import('../engine/store/index.js'), import('../engine/save/index.js'), import('../importers/index.js'), import('../sources/forgottenSessions.js')]).then(
    ([engine, store, save, importers, forgotten]) => ({ MemoryEngine: engine.MemoryEngine, ChunkStore: store.ChunkStore, normalizeSession: save.normalizeSession, readTranscripts: importers.readTranscripts, incompleteSessions: importers.incompleteSessions, sourceTraces: forgotten.sourceTraces }),
  );
  engineCode.catch(() => (engineCode = null));
  return engineCode;
}

export interface MemoryServerOptions {
  /** This machine's folder for the memory (the memory itself, for a local store). */
  dataDir: string;
  /** The store, when it is not `<dataDir>/lancedb` (a store on object storage). */
  storeUri?: string;
  singleWriter?: boolean;
  model?: string;
  modelsDir?: string;
  /** Leave `save_session` out. */
  readOnly?: boolean;
  logger: Logger;
  /** Reported to clients in the handshake. */
  version: string;
}

const isoDate = z.string().refine((value) => !Number.isNaN(Date.parse(value)), { message: 'must be an ISO 8601 date, e.g. 2025-03-01 or 2025-03-01T09:00:00Z' });

/** One memory as search_memory returns it. */
const resultSchema = z.object({
  sessionId: z.string(),
  sessionTitle: z.string(),
  date: z.string().nullable(),
  text: z.string(),
  score: z.number(),
  chunkId: z.string(),
  messageIds: z.array(z.string()),
  alsoIn: z.array(z.object({ sessionId: z.string(), chunkId: z.string() })),
});

const sessionSchema = z.object({
  sessionId: z.string(),
  title: z.string(),
  source: z.string().nullable(),
  messages: z.number(),
  chunks: z.number(),
  lastSavedAt: z.string(),
});

/** How often a server that does not serve the hooks looks again whether it can (another one ended). */
const HOOKS_RETRY_MS = 30_000;

export class MemoryServer {
  readonly mcp: ToolServer;
  private engineOpening: Promise<MemoryEngine> | null = null;
  private warming: Promise<void> | null = null;
  private closed = false;
  private hooks: { server: import('../sources/handoff.js').HandoffServer | null; retry: NodeJS.Timeout | null; attempt: Promise<void> | null; saves: import('../sources/handedSaves.js').HandedSaves | null; stop: AbortController } = {
    server: null,
    retry: null,
    attempt: null,
    saves: null,
    stop: new AbortController(),
  };

  constructor(private readonly options: MemoryServerOptions) {
    this.mcp = new ToolServer({ name: 'session-memory', version: options.version }, instructionsOf(Boolean(options.readOnly)));
    this.registerTools();
  }

  async close(): Promise<void> {
    // A warm-up under way finishes first: a model loaded after the engine closed would keep the
    // process alive once the client has gone.
    this.closed = true;
    if (this.hooks.retry) clearInterval(this.hooks.retry);
    await this.hooks.attempt;
    // The door first (a hook told nothing more saves on its own), then the save under way ends at a
    // safe point before the engine closes.
    await this.hooks.server?.close();
    this.hooks.server = null;
    this.hooks.stop.abort();
    await this.hooks.saves?.idle();
    await this.warming?.catch(() => {});
    const opening = this.engineOpening;
    this.engineOpening = null;
    if (opening) await (await opening.catch(() => null))?.close();
    await this.mcp.close();
  }

  private async storeExists(): Promise<boolean> {
    if (!this.options.storeUri && !existsSync(this.options.dataDir)) return false;
    const { ChunkStore } = await loadEngineCode();
    return (await ChunkStore.readModel(this.options.storeUri ?? path.join(this.options.dataDir, 'lancedb'))) !== null;
  }

  /** The engine, opened on first use and kept: the model stays loaded between calls. */
  private engine(): Promise<MemoryEngine> {
    if (!this.engineOpening) {
      this.engineOpening = loadEngineCode().then(({ MemoryEngine, sourceTraces }) => MemoryEngine.open({
        dataDir: this.options.dataDir,
        ...(this.options.storeUri ? { storeUri: this.options.storeUri } : {}),
        ...(this.options.singleWriter ? { singleWriter: true } : {}),
        ...(this.options.model ? { model: this.options.model } : {}),
        ...(this.options.modelsDir ? { modelsDir: this.options.modelsDir } : {}),
        logger: this.options.logger,
        localTraces: sourceTraces,
      }));
      this.engineOpening.catch(() => (this.engineOpening = null));
    }
    return this.engineOpening;
  }

  /**
   * Loads the code and opens the engine ahead of the first call, so the first search does not wait for
   * the model, nor for the reading of times in questions (loaded by the first search otherwise).
   */
  warmUp(): Promise<void> {
    this.warming ??= (async () => {
      if (this.closed || !(await this.storeExists()) || this.closed) return;
      const engine = await this.engine();
      if (!this.closed) await Promise.all([engine.embedder(), import('../engine/search/index.js').then((search) => search.loadTimeReading())]);
    })();
    return this.warming;
  }

  /**
   * Serves the hooks of this data folder (sources/handoff.ts) while the assistant's session lasts:
   * the server is up for the whole session with the model loaded, so each turn's hook, the first
   * included, hands its save over rather than load the store and the model. Not when read-only. It
   * gives way to the app and `sync --watch`, and takes nothing over: when another process serves (a
   * hooks' saver, another session's server), it looks again every 30 s, as that one may end first.
   */
  async serveHooks(): Promise<void> {
    if (this.options.readOnly || this.closed || this.hooks.retry) return;
    const [{ serveHandoff }, { handedSaves }] = await Promise.all([import('../sources/handoff.js'), import('../sources/handedSaves.js')]);
    const saves = handedSaves(this.options.dataDir, () => this.engine(), { signal: this.hooks.stop.signal });
    this.hooks.saves = saves;
    const attempt = async () => {
      if (this.closed || this.hooks.server || this.hooks.attempt) return;
      this.hooks.attempt = (async () => {
        const server = await serveHandoff(this.options.dataDir, saves.handle, {
          onYield: () => {
            if (this.hooks.server === server) this.hooks.server = null;
            void server?.close();
            this.options.logger.info('the hooks of this data folder are served by the app or `sync --watch` now');
          },
        }).catch(() => null);
        if (server && this.closed) await server.close();
        else if (server) {
          this.hooks.server = server;
          this.options.logger.info('serving the hooks of this data folder: each turn\'s save is handed to this server');
        }
      })().finally(() => (this.hooks.attempt = null));
      await this.hooks.attempt;
    };
    this.hooks.retry = setInterval(() => void attempt(), HOOKS_RETRY_MS);
    this.hooks.retry.unref();
    await attempt();
  }

  private registerTools(): void {
    this.mcp.registerTool(
      'search_memory',
      {
        title: 'Search memory',
        description:
          'Search the archived conversations by meaning and by words. Returns the best-matching passages of dialogue, each once (copies in other sessions are listed in alsoIn), with the session they come from and its date.',
        inputSchema: {
          query: z.string().trim().min(1).max(2000).describe('what to look for: a question, a topic, or keywords, in any language'),
          limit: z.number().int().min(1).max(50).default(8).describe('how many results (1-50, default 8)'),
          session_id: z.string().min(1).optional().describe('only this session'),
          since: isoDate.optional().describe('only conversations from this date on (ISO 8601)'),
          until: isoDate.optional().describe('only conversations up to this date (ISO 8601; a bare date includes that whole day)'),
        },
        outputSchema: { query: z.string(), results: z.array(resultSchema) },
        annotations: { readOnlyHint: true },
      },
      async ({ query, limit, session_id, since, until }) => {
        const results = (await this.storeExists()) ? await this.search(query, limit, session_id, since, until) : [];
        const text =
          results.length === 0
            ? `No memories found for "${query}".`
            : results.map((r, i) => `${i + 1}. ${r.sessionTitle} (${r.date ? r.date.slice(0, 10) : 'undated'}; session ${r.sessionId}; score ${r.score.toFixed(2)}${r.alsoIn.length > 0 ? `; also in ${new Set(r.alsoIn.map((c) => c.sessionId)).size} other session(s)` : ''})\n${r.text}`).join('\n\n');
        return { content: [{ type: 'text', text }], structuredContent: { query, results } };
      },
    );

    this.mcp.registerTool(
      'list_sessions',
      {
        title: 'List sessions',
        description: 'List the archived conversations, most recently saved first, optionally only those whose title or id contains a text.',
        inputSchema: {
          query: z.string().max(500).optional().describe('only sessions whose title or id contains this (case-insensitive)'),
          limit: z.number().int().min(1).max(500).default(50).describe('how many sessions (default 50)'),
        },
        outputSchema: { total: z.number(), sessions: z.array(sessionSchema) },
        annotations: { readOnlyHint: true },
      },
      async ({ query, limit }) => {
        const all = (await this.storeExists()) ? await (await this.engine()).listSessions() : [];
        const needle = query?.trim().toLocaleLowerCase();
        const matching = all
          .filter((s) => !needle || s.title.toLocaleLowerCase().includes(needle) || s.sessionId.toLocaleLowerCase().includes(needle))
          .sort((a, b) => b.lastSavedAt.localeCompare(a.lastSavedAt));
        const sessions = matching.slice(0, limit).map(sessionOut);
        const text =
          sessions.length === 0
            ? 'No sessions archived yet.'
            : [`${matching.length} session(s)${matching.length > sessions.length ? `, the ${sessions.length} most recent shown` : ''}:`, ...sessions.map((s) => `- ${s.title} [${s.sessionId}] ${s.source ?? ''} ${s.messages} messages, ${s.chunks} chunks, last saved ${s.lastSavedAt}`)].join('\n');
        return { content: [{ type: 'text', text }], structuredContent: { total: matching.length, sessions } };
      },
    );

    this.mcp.registerTool(
      'get_session',
      {
        title: 'Get a session',
        description: 'Read an archived conversation in order, a page of messages at a time. Use nextFrom to read on.',
        inputSchema: {
          session_id: z.string().min(1).describe('the session id (from search_memory or list_sessions)'),
          from_message: z.number().int().min(0).default(0).describe('position of the first message to return, from 0'),
          limit: z.number().int().min(1).max(1000).default(200).describe('how many messages (default 200)'),
        },
        outputSchema: {
          sessionId: z.string(),
          title: z.string(),
          source: z.string().nullable(),
          totalMessages: z.number(),
          fromMessage: z.number(),
          nextFrom: z.number().nullable(),
          messages: z.array(z.object({ position: z.number(), messageId: z.string(), role: z.string(), speaker: z.string().optional(), content: z.string(), timestamp: z.string().nullable() })),
        },
        annotations: { readOnlyHint: true },
      },
      async ({ session_id, from_message, limit }) => {
        if (!(await this.storeExists())) throw new EngineError('not_found', `no session "${session_id}" in this store (it is empty)`);
        const detail = await (await this.engine()).showSession(session_id);
        const page = detail.messages.slice(from_message, from_message + limit);
        const nextFrom = from_message + page.length < detail.messages.length ? from_message + page.length : null;
        const messages = page.map((m, i) => ({ position: from_message + i, messageId: m.msgId, role: m.role, ...(m.speaker ? { speaker: m.speaker } : {}), content: m.content, timestamp: m.timestamp ?? null }));
        const title = detail.title ?? detail.sessionId;
        const header = `${title} [${detail.sessionId}]: messages ${from_message}-${from_message + page.length - 1} of ${detail.messages.length}${nextFrom !== null ? ` (read on with from_message ${nextFrom})` : ''}`;
        const text = [header, ...messages.map((m) => `[${m.position}] ${m.speaker ? `${m.speaker} (${m.role})` : m.role}${m.timestamp ? ` (${m.timestamp})` : ''}: ${m.content}`)].join('\n\n');
        return { content: [{ type: 'text', text }], structuredContent: { sessionId: detail.sessionId, title, source: detail.source ?? null, totalMessages: detail.messages.length, fromMessage: from_message, nextFrom, messages } };
      },
    );

    if (this.options.readOnly) return;
    this.mcp.registerTool(
      'save_session',
      {
        title: 'Save a conversation',
        description:
          'Save a conversation to memory, incrementally: only new or changed messages are stored, and a conversation already archived in full is skipped. transcript is an object {session_id, title?, messages: [{role, content, msg_id?, timestamp?}]} or the text of any supported export (ChatGPT, Claude, Open WebUI, OpenClaw, Claude Code, SillyTavern, Markdown).',
        inputSchema: {
          transcript: z.union([z.record(z.string(), z.unknown()), z.string().min(1)]).describe('the conversation: an object in the JSON transcript format, or the text of a supported export'),
          mode: z.enum(SAVE_MODES as unknown as [SaveMode, ...SaveMode[]]).default('incremental').describe('incremental (default), overwrite, or skip-if-archived'),
        },
        outputSchema: {
          reports: z.array(z.record(z.string(), z.unknown())),
          skipped: z.array(z.object({ session: z.string().optional(), line: z.number().optional(), error: z.string() })).describe('damaged parts of the transcript that were left out (not saved)'),
        },
      },
      async ({ transcript, mode }) => {
        const { sessions, skipped, incomplete } = await this.parseTranscript(transcript);
        const engine = await this.engine();
        const reports: SaveReport[] = [];
        for (const session of sessions) reports.push(await engine.save(session, { mode, ...(incomplete ? { incomplete } : {}) }));
        const parts = skipped.map(({ session, line, error }) => ({ ...(session !== undefined ? { session } : {}), ...(line !== undefined ? { line } : {}), error }));
        const lines = [
          ...reports.map(describeSave),
          ...reports.flatMap((r) => r.warnings.map((w) => `Warning: ${w}`)),
          ...parts.map((p) => `Skipped as damaged, not saved: the transcript${p.line !== undefined ? `, line ${p.line}` : p.session !== undefined ? `, conversation ${p.session}` : ''}: ${p.error}`),
        ];
        return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: { reports: reports.map((r) => ({ ...r })), skipped: parts } };
      },
    );
  }

  private async search(query: string, limit: number, sessionId: string | undefined, since: string | undefined, until: string | undefined): Promise<Array<z.infer<typeof resultSchema>>> {
    const engine = await this.engine();
    const filtered = since !== undefined || until !== undefined;
    // Date filters apply after the search: ask for more so that enough remain.
    const hits = await engine.search(query, { limit: filtered ? Math.min(200, limit * 5) : limit, ...(sessionId ? { sessionId } : {}) });
    const titles = new Map((await engine.listSessions()).map((s) => [s.sessionId, s]));
    const dates = await this.datesOf(engine, hits, titles);
    const from = since !== undefined ? Date.parse(since) : -Infinity;
    const to = until !== undefined ? endOf(until) : Infinity;
    return hits
      .map((hit) => ({ hit, date: dates.get(hit.chunkId) ?? null }))
      .filter(({ date }) => !filtered || (date !== null && Date.parse(date) >= from && Date.parse(date) <= to))
      .slice(0, limit)
      .map(({ hit, date }) => ({
        sessionId: hit.sessionId,
        sessionTitle: titles.get(hit.sessionId)?.title ?? hit.sessionId,
        date,
        text: hit.text,
        score: hit.score,
        chunkId: hit.chunkId,
        messageIds: hit.msgIds,
        alsoIn: hit.alsoIn,
      }));
  }

  /** A result's date: its first message's time when the transcript gave one, else when its session was first archived. */
  private async datesOf(engine: MemoryEngine, hits: SearchHit[], sessions: Map<string, SessionSummary>): Promise<Map<string, string>> {
    const dates = new Map<string, string>();
    const bySession = new Map<string, SearchHit[]>();
    for (const hit of hits) bySession.set(hit.sessionId, [...(bySession.get(hit.sessionId) ?? []), hit]);
    for (const [sessionId, sessionHits] of bySession) {
      const owned = await engine.store.ownedMessages(sessionId, sessionHits.map((h) => h.chunkId));
      for (const hit of sessionHits) {
        const times = hit.msgIds.map((id) => owned.get(id)?.timestamp).filter((t): t is string => Boolean(t));
        const date = times.sort()[0] ?? sessions.get(sessionId)?.archivedAt;
        if (date) dates.set(hit.chunkId, date);
      }
    }
    return dates;
  }

  /** The sessions of a transcript given as an object or as the text of any supported format, and its damaged parts left out. */
  private async parseTranscript(transcript: string | Record<string, unknown>): Promise<{ sessions: SessionInput[]; skipped: SkippedPart[]; incomplete?: string }> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'session-memory-mcp-'));
    const file = path.join(dir, 'transcript');
    // The temporary file's name means nothing to the caller: speak of "the transcript".
    const named = (text: string) => text.replaceAll(file, 'the transcript');
    try {
      await fs.writeFile(file, typeof transcript === 'string' ? transcript : JSON.stringify(transcript));
      const { readTranscripts, incompleteSessions, normalizeSession } = await loadEngineCode();
      const sessions: SessionInput[] = [];
      const skipped: SkippedPart[] = [];
      let incomplete: string | undefined;
      for await (const read of readTranscripts([file])) {
        if ('error' in read) throw read.error;
        for await (const session of read.sessions) sessions.push(session);
        skipped.push(...read.skipped.map((part) => ({ ...part, file: 'the transcript', error: named(part.error) })));
        incomplete = incompleteSessions({ file: 'the transcript', skipped: read.skipped });
      }
      if (sessions.length === 0) throw new EngineError('invalid_input', `the transcript holds no messages to save${skipped.length > 0 ? ` (${skipped.length} damaged part${skipped.length === 1 ? '' : 's'}, the first: ${skipped[0]!.error})` : ''}`);
      // Checked before the write lock is taken, so that a bad transcript is refused at once.
      for (const session of sessions) normalizeSession(session);
      return { sessions, skipped, ...(incomplete ? { incomplete } : {}) };
    } catch (error) {
      if (error instanceof Error) error.message = named(error.message);
      throw error;
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }
}

/**
 * What the server holds, in the handshake's `instructions`. A client that defers MCP tools shows the
 * model these words in place of the tools (Codex 0.171 lists `mcp__session_memory: <instructions>`
 * among its deferred namespaces, and bare `mcp__session_memory` without them, and gives them as the
 * namespace's description once its `tool_search` loaded it); Claude Code and Gemini CLI put them in
 * their system prompt.
 */
function instructionsOf(readOnly: boolean): string {
  return `Memory of the person's past conversations with AI assistants, saved as they happen: search_memory finds what was said before (a fact they gave, a decision, a name); list_sessions and get_session read the conversations${readOnly ? '' : '; save_session saves one'}.`;
}

function sessionOut(s: SessionSummary): z.infer<typeof sessionSchema> {
  return { sessionId: s.sessionId, title: s.title, source: s.source ?? null, messages: s.messageCount, chunks: s.chunkCount, lastSavedAt: s.lastSavedAt };
}

/** The end of `until`: a bare date means the whole day. */
function endOf(until: string): number {
  return /^\d{4}-\d{2}-\d{2}$/.test(until) ? Date.parse(`${until}T23:59:59.999Z`) : Date.parse(until);
}

function describeSave(r: SaveReport): string {
  if (r.forgotten) return `${r.sessionId}: this session was forgotten by the person; it is not saved again, nothing written.`;
  if (r.skippedSession) return `${r.sessionId}: already archived in full; ${r.total} messages skipped, nothing written.`;
  return `${r.sessionId}: ${r.total} messages: ${r.new} new, ${r.updated} updated, ${r.skipped} skipped, ${r.deleted} deleted; ${r.chunksWritten} chunks written (${r.embeddingsComputed} embeddings).`;
}
