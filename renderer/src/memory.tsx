/**
 * The API in React: a provider for the `MemoryApi`, a store version that saves bump (so lists reload), and
 * `useMemoryQuery`, which loads data, tracks loading and reports failures to the alert region.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { MemoryApi } from '../../shared/ipc.js';
import { useReportError } from './alerts.js';

interface MemoryValue {
  api: MemoryApi;
  /** Increases after every write to the store (an import, an overwrite). */
  storeVersion: number;
  storeChanged(): void;
}

const MemoryContext = createContext<MemoryValue | null>(null);

export function MemoryProvider({ api, children }: { api: MemoryApi; children: ReactNode }): ReactNode {
  const [storeVersion, setStoreVersion] = useState(0);
  const storeChanged = useCallback(() => setStoreVersion((version) => version + 1), []);
  const value = useMemo(() => ({ api, storeVersion, storeChanged }), [api, storeVersion, storeChanged]);
  return <MemoryContext.Provider value={value}>{children}</MemoryContext.Provider>;
}

function useMemoryContext(): MemoryValue {
  const value = useContext(MemoryContext);
  if (!value) throw new Error('useApi outside MemoryProvider');
  return value;
}

export function useApi(): MemoryApi {
  return useMemoryContext().api;
}

export function useStoreVersion(): { storeVersion: number; storeChanged(): void } {
  const { storeVersion, storeChanged } = useMemoryContext();
  return { storeVersion, storeChanged };
}

export type QueryState<T> =
  | { status: 'loading'; data?: T; error?: undefined }
  | { status: 'ready'; data: T; error?: undefined }
  | { status: 'error'; data?: T; error: unknown };

/**
 * Loads `load(api)` when `key` changes (and after every store write); the last answer wins. A failure is
 * reported to the alert region and kept in `error` so the view can offer a retry.
 */
export function useMemoryQuery<T>(key: string | null, load: (api: MemoryApi) => Promise<T>): QueryState<T> & { reload(): void } {
  const { api, storeVersion } = useMemoryContext();
  const report = useReportError();
  // Data is kept while the same key reloads (no flicker after a save) and dropped when the key changes.
  const [state, setState] = useState<QueryState<T> & { key: string | null }>({ status: 'loading', key });
  const [attempt, setAttempt] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    if (key === null) return;
    let current = true;
    setState((previous) => ({ status: 'loading', data: previous.key === key ? previous.data : undefined, key }));
    loadRef.current(api).then(
      (data) => {
        if (current) setState({ status: 'ready', data, key });
      },
      (error: unknown) => {
        if (!current) return;
        report(error);
        setState((previous) => ({ status: 'error', error, data: previous.key === key ? previous.data : undefined, key }));
      },
    );
    return () => {
      current = false;
    };
  }, [api, key, storeVersion, attempt, report]);

  const reload = useCallback(() => setAttempt((value) => value + 1), []);
  const { key: _stateKey, ...query } = state;
  // Before the effect has run for a new key, the old key's answer must not show.
  if (_stateKey !== key) return { status: 'loading', reload };
  return { ...query, reload };
}
