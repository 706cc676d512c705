/**
 * The one place errors from the host reach the person: a visible alert region at the top of the window.
 * Components report with `useReportError()`; nothing catches an API error and drops it.
 */
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import type { ErrorCode } from '../../shared/errors.js';
import { MemoryApiError } from '../../shared/ipc.js';
import { errorTitle, useT } from './i18n.js';

export interface AlertEntry {
  id: number;
  code: ErrorCode;
  message: string;
}

interface AlertsValue {
  alerts: AlertEntry[];
  report(error: unknown): void;
  dismiss(id: number): void;
  dismissAll(): void;
}

const AlertsContext = createContext<AlertsValue | null>(null);

export function toErrorInfo(error: unknown): { code: ErrorCode; message: string } {
  if (error instanceof MemoryApiError) return { code: error.code, message: error.message };
  if (error instanceof Error) return { code: 'internal', message: error.message };
  return { code: 'internal', message: String(error) };
}

let nextAlertId = 1;

export function AlertsProvider({ children }: { children: ReactNode }): ReactNode {
  const [alerts, setAlerts] = useState<AlertEntry[]>([]);
  const report = useCallback((error: unknown) => {
    const info = toErrorInfo(error);
    // The same problem reported twice (a retry, two views) shows once, moved to the end.
    setAlerts((current) => [...current.filter((entry) => entry.code !== info.code || entry.message !== info.message), { id: nextAlertId++, ...info }].slice(-5));
  }, []);
  const dismiss = useCallback((id: number) => setAlerts((current) => current.filter((entry) => entry.id !== id)), []);
  const dismissAll = useCallback(() => setAlerts([]), []);
  const value = useMemo(() => ({ alerts, report, dismiss, dismissAll }), [alerts, report, dismiss, dismissAll]);
  return <AlertsContext.Provider value={value}>{children}</AlertsContext.Provider>;
}

function useAlerts(): AlertsValue {
  const value = useContext(AlertsContext);
  if (!value) throw new Error('useAlerts outside AlertsProvider');
  return value;
}

export function useReportError(): (error: unknown) => void {
  return useAlerts().report;
}

/** The alert region: always in the document, so screen readers announce what appears in it. */
export function AlertRegion(): ReactNode {
  const t = useT();
  const { alerts, dismiss, dismissAll } = useAlerts();
  return (
    <section className="alerts" aria-label={t('errors.region')}>
      <div role="alert" className="alerts__list">
        {alerts.map((entry) => (
          <div key={entry.id} className="alert" data-code={entry.code}>
            <span className="alert__icon" aria-hidden="true">
              !
            </span>
            <p className="alert__text">
              <strong>{errorTitle(t, entry.code)}</strong> {entry.message}
            </p>
            <button type="button" className="icon-button" onClick={() => dismiss(entry.id)} aria-label={t('errors.dismiss')} title={t('errors.dismiss')}>
              ×
            </button>
          </div>
        ))}
      </div>
      {alerts.length > 1 && (
        <button type="button" className="link-button alerts__all" onClick={dismissAll}>
          {t('errors.dismissAll')}
        </button>
      )}
    </section>
  );
}
