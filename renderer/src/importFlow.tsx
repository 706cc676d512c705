/**
 * The import, from a drop to the reports: stage each file, preview (a dry run) all of them, let the person
 * choose sessions and confirm, run with progress and cancel, show what was saved. It lives above the views so a
 * drop on any page lands here and a running import survives navigating away.
 */
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import type { SaveMode } from '../../shared/domain.js';
import type { ErrorInfo } from '../../shared/errors.js';
import type { EventMap, FilePreview, ImportResult } from '../../shared/ipc.js';
import { MemoryApiError } from '../../shared/ipc.js';
import { toErrorInfo, useReportError } from './alerts.js';
import { stageFile } from './files.js';
import { useApi, useStoreVersion } from './memory.js';

export interface StagedFileEntry {
  key: number;
  name: string;
  size: number;
  status: 'reading' | 'sending' | 'staged' | 'error';
  fileId?: string;
  error?: ErrorInfo;
}

export type ProgressPhase = EventMap['onSaveProgress']['phase'] | 'starting';

export interface ImportProgress {
  phase: ProgressPhase;
  done: number;
  total: number;
  fileIndex: number;
  fileCount: number;
  sessionId?: string;
  sessionsDone: number;
  sessionsTotal: number;
  /** 0..1 over the whole import. */
  fraction: number;
}

export type ImportMode = Extract<SaveMode, 'incremental' | 'skip-if-archived'>;

export interface ImportFlowState {
  files: StagedFileEntry[];
  previews: FilePreview[] | null;
  previewing: boolean;
  previewFailed: boolean;
  /** `fileId\nsessionId` of sessions the person unticked. */
  excluded: ReadonlySet<string>;
  mode: ImportMode;
  syncDeletes: boolean;
  progress: ImportProgress | null;
  cancelling: boolean;
  result: ImportResult | null;
  busyNotice: boolean;
}

export interface ImportFlow extends ImportFlowState {
  staging: boolean;
  running: boolean;
  addFiles(files: File[]): void;
  removeFile(key: number): void;
  retryPreview(): void;
  toggleSession(fileId: string, sessionId: string): void;
  setMode(mode: ImportMode): void;
  setSyncDeletes(value: boolean): void;
  run(): void;
  cancel(): void;
  reset(): void;
}

const INITIAL: ImportFlowState = {
  files: [],
  previews: null,
  previewing: false,
  previewFailed: false,
  excluded: new Set(),
  mode: 'incremental',
  syncDeletes: false,
  progress: null,
  cancelling: false,
  result: null,
  busyNotice: false,
};

export const sessionKey = (fileId: string, sessionId: string): string => `${fileId}\n${sessionId}`;

/** Where in a session's save a phase sits, as a share of its work (embedding is most of it). */
const PHASE_SPAN: Record<ProgressPhase, [number, number]> = {
  starting: [0, 0],
  reading: [0, 0.1],
  chunking: [0.1, 0.2],
  embedding: [0.2, 0.9],
  writing: [0.9, 1],
  done: [1, 1],
};

export function progressFraction(progress: Omit<ImportProgress, 'fraction'>): number {
  const [start, end] = PHASE_SPAN[progress.phase];
  const within = progress.phase === 'done' ? 0 : start + (end - start) * (progress.total > 0 ? Math.min(1, progress.done / progress.total) : 0);
  if (progress.sessionsTotal > 0) return Math.min(1, (progress.sessionsDone + within) / progress.sessionsTotal);
  if (progress.fileCount > 0) return Math.min(1, (progress.fileIndex + within) / progress.fileCount);
  return 0;
}

/** The sessions the run would import: ticked ones of files that could be read. */
export function selectedSessions(state: Pick<ImportFlowState, 'previews' | 'excluded'>): Array<{ fileId: string; session: FilePreview['sessions'][number] }> {
  return (state.previews ?? []).flatMap((preview) =>
    preview.error ? [] : preview.sessions.filter((session) => !state.excluded.has(sessionKey(preview.fileId, session.sessionId))).map((session) => ({ fileId: preview.fileId, session })),
  );
}

/**
 * A session forgotten on some machine of this store starts unticked: saving it again is a choice the
 * person makes by ticking it. Sessions the person has already seen keep their choice.
 */
export function withForgottenLeftOut(state: Pick<ImportFlowState, 'previews' | 'excluded'>, previews: readonly FilePreview[]): ReadonlySet<string> {
  const seen = new Set((state.previews ?? []).flatMap((preview) => preview.sessions.map((session) => sessionKey(preview.fileId, session.sessionId))));
  const excluded = new Set(state.excluded);
  for (const preview of previews) {
    for (const session of preview.sessions) {
      const key = sessionKey(preview.fileId, session.sessionId);
      if (session.forgotten && !seen.has(key)) excluded.add(key);
    }
  }
  return excluded;
}

const ImportFlowContext = createContext<ImportFlow | null>(null);

export function ImportFlowProvider({ children }: { children: ReactNode }): ReactNode {
  const api = useApi();
  const report = useReportError();
  const { storeChanged } = useStoreVersion();
  const [state, setState] = useState<ImportFlowState>(INITIAL);
  // The async steps (staging, preview, run) read the latest state here, not from a render's closure.
  const stateRef = useRef(state);
  const nextKey = useRef(1);
  /** Bumped by every new preview request and by reset, so a late answer of an old one is dropped. */
  const generation = useRef(0);
  const stagingQueue = useRef<Promise<void>>(Promise.resolve());

  const update = useCallback((change: (state: ImportFlowState) => ImportFlowState) => {
    const next = change(stateRef.current);
    stateRef.current = next;
    setState(next);
  }, []);

  const preview = useCallback(async () => {
    const fileIds = stateRef.current.files.filter((file) => file.status === 'staged' && file.fileId).map((file) => file.fileId as string);
    const ticket = ++generation.current;
    if (fileIds.length === 0) {
      update((current) => ({ ...current, previews: null, previewing: false, previewFailed: false }));
      return;
    }
    update((current) => ({ ...current, previewing: true, previewFailed: false }));
    try {
      const previews = await api['import:preview']({ fileIds });
      if (ticket !== generation.current) return;
      update((current) => ({ ...current, previews, previewing: false, excluded: withForgottenLeftOut(current, previews) }));
    } catch (error) {
      if (ticket !== generation.current) return;
      report(error);
      update((current) => ({ ...current, previewing: false, previewFailed: true }));
    }
  }, [api, report, update]);

  const addFiles = useCallback(
    (files: File[]) => {
      if (files.length === 0) return;
      const current = stateRef.current;
      if (current.progress && !current.result) {
        update((state) => ({ ...state, busyNotice: true }));
        return;
      }
      const entries: StagedFileEntry[] = files.map((file) => ({ key: nextKey.current++, name: file.name, size: file.size, status: 'reading' }));
      // A drop after the reports starts a new import.
      update((state) => ({ ...(state.result ? { ...INITIAL, mode: state.mode, syncDeletes: state.syncDeletes } : state), busyNotice: false, files: [...(state.result ? [] : state.files), ...entries] }));
      const setEntry = (key: number, change: Partial<StagedFileEntry>): void =>
        update((state) => ({ ...state, files: state.files.map((entry) => (entry.key === key ? { ...entry, ...change } : entry)) }));
      // One file at a time: a large export is held in memory only while it is being sent.
      stagingQueue.current = stagingQueue.current.then(async () => {
        for (const [index, file] of files.entries()) {
          const entry = entries[index];
          if (!entry || !stateRef.current.files.some((candidate) => candidate.key === entry.key)) continue;
          try {
            const staged = await stageFile(api, file, () => setEntry(entry.key, { status: 'sending' }));
            setEntry(entry.key, { status: 'staged', fileId: staged.fileId, size: staged.size });
          } catch (error) {
            setEntry(entry.key, { status: 'error', error: toErrorInfo(error) });
            if (!(error instanceof MemoryApiError && error.code === 'invalid_input')) report(error);
          }
        }
        await preview();
      });
    },
    [api, preview, report, update],
  );

  const removeFile = useCallback(
    (key: number) => {
      update((state) => ({ ...state, files: state.files.filter((entry) => entry.key !== key) }));
      stagingQueue.current = stagingQueue.current.then(preview);
    },
    [preview, update],
  );

  const run = useCallback(() => {
    const current = stateRef.current;
    if (current.progress && !current.result) return;
    const chosen = selectedSessions(current);
    const fileIds = [...new Set(chosen.map((entry) => entry.fileId))];
    if (fileIds.length === 0) return;
    const unforget = [...new Set(chosen.filter((entry) => entry.session.forgotten).map((entry) => entry.session.sessionId))];
    const everything = (current.previews ?? []).every((preview) => preview.error || preview.sessions.every((session) => !current.excluded.has(sessionKey(preview.fileId, session.sessionId))));
    const base = { phase: 'starting' as ProgressPhase, done: 0, total: 0, fileIndex: 0, fileCount: fileIds.length, sessionsDone: 0, sessionsTotal: chosen.length };
    update((state) => ({ ...state, progress: { ...base, fraction: 0 }, cancelling: false, result: null, busyNotice: false }));
    const finished = new Set<string>();
    const unsubscribe = api.on('onSaveProgress', (event) => {
      if (event.phase === 'done') finished.add(`${event.fileIndex}\n${event.sessionId}`);
      const next = { phase: event.phase, done: event.done, total: event.total, fileIndex: event.fileIndex, fileCount: event.fileCount, sessionId: event.sessionId, sessionsDone: finished.size, sessionsTotal: chosen.length };
      update((state) => (state.progress && !state.result ? { ...state, progress: { ...next, fraction: progressFraction(next) } } : state));
    });
    api['import:run']({
      fileIds,
      mode: current.mode,
      ...(current.syncDeletes ? { syncDeletes: true } : {}),
      ...(everything ? {} : { sessionIds: [...new Set(chosen.map((entry) => entry.session.sessionId))] }),
      ...(unforget.length > 0 ? { unforget } : {}),
    })
      .then(
        (result) => update((state) => ({ ...state, result, cancelling: false })),
        (error: unknown) => {
          if (error instanceof MemoryApiError && error.code === 'cancelled') {
            update((state) => ({ ...state, result: { files: [], cancelled: true }, cancelling: false }));
            return;
          }
          report(error);
          update((state) => ({ ...state, progress: null, cancelling: false }));
        },
      )
      .finally(() => {
        unsubscribe();
        storeChanged();
      });
  }, [api, report, storeChanged, update]);

  const cancel = useCallback(() => {
    update((state) => ({ ...state, cancelling: true }));
    api['import:cancel']({}).catch((error: unknown) => {
      report(error);
      update((state) => ({ ...state, cancelling: false }));
    });
  }, [api, report, update]);

  const reset = useCallback(() => {
    generation.current++;
    update((state) => ({ ...INITIAL, mode: state.mode, syncDeletes: state.syncDeletes }));
  }, [update]);

  const flow = useMemo<ImportFlow>(
    () => ({
      ...state,
      staging: state.files.some((file) => file.status === 'reading' || file.status === 'sending'),
      running: state.progress !== null && state.result === null,
      addFiles,
      removeFile,
      retryPreview: () => void preview(),
      toggleSession: (fileId, sessionId) =>
        update((current) => {
          const excluded = new Set(current.excluded);
          const key = sessionKey(fileId, sessionId);
          if (!excluded.delete(key)) excluded.add(key);
          return { ...current, excluded };
        }),
      setMode: (mode) => update((current) => ({ ...current, mode })),
      setSyncDeletes: (syncDeletes) => update((current) => ({ ...current, syncDeletes })),
      run,
      cancel,
      reset,
    }),
    [state, addFiles, removeFile, preview, update, run, cancel, reset],
  );
  return <ImportFlowContext.Provider value={flow}>{children}</ImportFlowContext.Provider>;
}

export function useImportFlow(): ImportFlow {
  const value = useContext(ImportFlowContext);
  if (!value) throw new Error('useImportFlow outside ImportFlowProvider');
  return value;
}
