/**
 * Settings › Storage: where the memory lives (a folder, or a store on object storage and this
 * computer's folder for it), pointing the app at another folder or bucket URI (optionally copying the
 * current memory there), the machines that saved to it lately, and the app's log.
 */
import { useEffect, useId, useState, type FormEvent, type ReactNode } from 'react';
import type { Settings } from '../../../shared/ipc.js';
import type { ErrorInfo } from '../../../shared/errors.js';
import { toErrorInfo, useReportError } from '../alerts.js';
import { Loading } from '../components/ui.js';
import { useFormat } from '../format.js';
import { errorTitle, useT } from '../i18n.js';
import { useApi, useMemoryQuery, useStoreVersion } from '../memory.js';
import { usePreferences } from '../preferences.js';

/** The period the writers are listed for. */
const WRITERS_DAYS = 30;

type Outcome = { kind: 'saved' } | { kind: 'refused'; error: ErrorInfo } | null;

export function StorageCard({ settings }: { settings: Settings }): ReactNode {
  const t = useT();
  const { storage } = settings;
  return (
    <section className="card" aria-labelledby="storage-title">
      <h2 id="storage-title" className="card__title">
        {t('settings.storage')}
      </h2>
      <dl className="kv">
        <div>
          <dt>{storage.shared ? t('settings.storage.store') : t('settings.storage.folder')}</dt>
          <dd className="mono">{storage.display}</dd>
        </div>
        {storage.shared && (
          <div>
            <dt>{t('settings.storage.localDir')}</dt>
            <dd className="mono">{storage.localDir}</dd>
          </div>
        )}
      </dl>
      {storage.shared && <p className="field__hint">{t('settings.storage.localDirHint')}</p>}
      <LocationForm settings={settings} />
      <RecentWriters machine={storage.machine} />
      {settings.logDir && <LogFolder settings={settings} logDir={settings.logDir} />}
    </section>
  );
}

/** A folder or store URI to use instead, with the choice to copy the current memory there first. */
function LocationForm({ settings }: { settings: Settings }): ReactNode {
  const t = useT();
  const api = useApi();
  const report = useReportError();
  const { settingsChanged } = usePreferences();
  const { storeChanged } = useStoreVersion();
  const inputId = useId();
  const hintId = useId();
  const [location, setLocation] = useState(settings.dataDir);
  const [copy, setCopy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => setLocation(settings.dataDir), [settings.dataDir]);
  const wanted = location.trim();
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    try {
      settingsChanged(await api['store:change']({ to: wanted, ...(copy ? { copy: true } : {}) }));
      storeChanged();
      setCopy(false);
      setOutcome({ kind: 'saved' });
    } catch (error) {
      report(error);
      setOutcome({ kind: 'refused', error: toErrorInfo(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="form" onSubmit={(event) => void submit(event)}>
      <div className="field">
        <label htmlFor={inputId} className="field__label">
          {t('settings.storage.location')}
        </label>
        <div className="input-row">
          <input id={inputId} className="input mono" value={location} onChange={(event) => setLocation(event.target.value)} aria-describedby={hintId} spellCheck={false} />
          <button type="submit" className="button" disabled={busy || !wanted || wanted === settings.dataDir}>
            {t('settings.dataDirApply')}
          </button>
        </div>
        <p id={hintId} className="field__hint">
          {t('settings.storage.locationHint')}
        </p>
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={copy} disabled={busy} onChange={(event) => setCopy(event.target.checked)} />
        {t('settings.storage.copy')}
      </label>
      {outcome?.kind === 'saved' && (
        <p className="success small" role="status">
          {t('settings.saved')}
        </p>
      )}
      {outcome?.kind === 'refused' && (
        <p className="inline-error small">
          <strong>{errorTitle(t, outcome.error.code)}</strong> {outcome.error.message}
        </p>
      )}
    </form>
  );
}

/** The machines that saved to this memory lately, newest first (from its save history). */
function RecentWriters({ machine }: { machine: string }): ReactNode {
  const t = useT();
  const format = useFormat();
  const titleId = useId();
  const writers = useMemoryQuery('store:writers', (api) => api['store:writers']({ days: WRITERS_DAYS }));
  return (
    <div className="field">
      <span id={titleId} className="field__label">
        {t('settings.storage.writers', { days: WRITERS_DAYS })}
      </span>
      {writers.status === 'loading' && <Loading />}
      {writers.data && writers.data.length === 0 && <p className="muted small">{t('settings.storage.writersNone', { days: WRITERS_DAYS })}</p>}
      {writers.data && writers.data.length > 0 && (
        <ul className="writers" aria-labelledby={titleId}>
          {writers.data.map((writer) => (
            <li key={writer.machine}>
              <span className="mono">{writer.machine}</span>
              {writer.machine === machine && <span className="muted"> {t('settings.storage.thisComputer')}</span>}
              <span className="muted small">
                {' · '}
                {t('settings.storage.writerSaves', { n: writer.saves })}
                {' · '}
                <time dateTime={writer.lastAt} title={format.dateTime(writer.lastAt)}>
                  {t('settings.storage.writerLast', { when: format.relative(writer.lastAt) })}
                </time>
              </span>
            </li>
          ))}
        </ul>
      )}
      <p className="field__hint">{t('settings.storage.writersHint')}</p>
    </div>
  );
}

/** Where the app's log is, and (in the desktop app) a button that opens it. */
function LogFolder({ settings, logDir }: { settings: Settings; logDir: string }): ReactNode {
  const t = useT();
  const api = useApi();
  const [problem, setProblem] = useState<string | null>(null);
  const open = async (): Promise<void> => {
    try {
      setProblem(null);
      await api['app:openLogFolder']({});
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  };
  return (
    <div className="field log-folder">
      <span className="field__label">{t('settings.log')}</span>
      <div className="input-row">
        <code className="mono log-folder__path">{logDir}</code>
        {settings.nativeDialogs && (
          <button type="button" className="button" onClick={() => void open()}>
            {t('settings.openLogFolder')}
          </button>
        )}
      </div>
      <p className="field__hint">{t('settings.logHint')}</p>
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}
