/**
 * Settings › Storage: where the memory lives (a folder, or a store on object storage and this
 * computer's folder for it), whether other machines share it, the machines that saved to it lately,
 * moving the app to another folder or bucket (optionally copying the current memory there), and the
 * app's log. A place is read here with the host's own parser, so a mistyped URI is answered at once
 * with the same line the host would give; the host checks it again, and refuses a store its writers
 * could not share safely.
 */
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import type { Settings, StorageView } from '../../../shared/ipc.js';
import type { DeletedObjectRetention } from '../../../shared/domain.js';
import type { ErrorInfo } from '../../../shared/errors.js';
import { isStoreUri, parseStoreUri, StoreLocationError } from '../../../shared/storeUri.js';
import { toErrorInfo, useReportError } from '../alerts.js';
import { Loading, LoadFailed } from '../components/ui.js';
import { useFormat } from '../format.js';
import { errorTitle, useT, type MessageKey } from '../i18n.js';
import { useApi, useMemoryQuery, useStoreVersion } from '../memory.js';
import { usePreferences } from '../preferences.js';

/** The period the writers are listed for. */
export const WRITERS_DAYS = 30;

/** `local`: refused here before it was sent (not in the alert region, so this line is announced itself). */
type Outcome = { kind: 'moved'; where: string } | { kind: 'refused'; error: ErrorInfo; local?: boolean } | null;

const KIND_LABELS: Record<StorageView['kind'], MessageKey> = {
  folder: 'settings.storage.kind.folder',
  s3: 'settings.storage.kind.s3',
  's3+ddb': 'settings.storage.kind.s3ddb',
  gs: 'settings.storage.kind.gs',
  az: 'settings.storage.kind.az',
};

/** What the provider does with deleted objects, and so with forgotten text (the detail is the host's, in English). */
const RETENTION_LABELS: Record<Exclude<DeletedObjectRetention['state'], 'none'>, MessageKey> = {
  off: 'settings.storage.retention.off',
  on: 'settings.storage.retention.on',
  suspended: 'settings.storage.retention.suspended',
  unknown: 'settings.storage.retention.unknown',
};

export function StorageCard({ settings }: { settings: Settings }): ReactNode {
  const t = useT();
  const { storage } = settings;
  return (
    <section className="card" aria-labelledby="storage-title">
      <h2 id="storage-title" className="card__title">
        {t('settings.storage')}
      </h2>
      <dl className="kv storage-where">
        <div>
          <dt>{t('settings.storage.where')}</dt>
          <dd className="mono">{storage.display}</dd>
        </div>
        <div>
          <dt>{t('settings.storage.kind')}</dt>
          <dd>{t(KIND_LABELS[storage.kind])}</dd>
        </div>
        <div>
          <dt>{t('settings.storage.shared')}</dt>
          <dd>{storage.shared ? t('settings.storage.sharedYes') : t('settings.storage.sharedNo')}</dd>
        </div>
        {storage.shared && (
          <div>
            <dt>{t('settings.storage.localDir')}</dt>
            <dd className="mono">{storage.localDir}</dd>
          </div>
        )}
        {storage.retention && storage.retention.state !== 'none' && (
          <div className="storage-retention" data-state={storage.retention.state}>
            <dt>{t('settings.storage.retention')}</dt>
            <dd>
              {t(RETENTION_LABELS[storage.retention.state])}
              <p className="field__hint">{storage.retention.message}</p>
            </dd>
          </div>
        )}
      </dl>
      <RecentWriters machine={storage.machine} />
      <MoveForm settings={settings} />
      {settings.logDir && <LogFolder settings={settings} logDir={settings.logDir} />}
    </section>
  );
}

/** What the host's parser says of a place before it is sent; null when it reads (folders are checked by the host). */
function placeProblem(place: string): ErrorInfo | null {
  if (!isStoreUri(place)) return null;
  try {
    parseStoreUri(place);
    return null;
  } catch (error) {
    if (error instanceof StoreLocationError) return { code: 'invalid_input', message: error.message };
    throw error;
  }
}

/** A folder or store URI to use instead, with the choice to copy the current memory there first. */
function MoveForm({ settings }: { settings: Settings }): ReactNode {
  const t = useT();
  const api = useApi();
  const report = useReportError();
  const { settingsChanged } = usePreferences();
  const { storeChanged } = useStoreVersion();
  const inputId = useId();
  const hintId = useId();
  const [place, setPlace] = useState('');
  const [copy, setCopy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  const wanted = place.trim();
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    if (!wanted) return;
    const problem = placeProblem(wanted);
    if (problem) {
      setOutcome({ kind: 'refused', error: problem, local: true });
      return;
    }
    setBusy(true);
    setOutcome(null);
    try {
      const changed = await api['store:change']({ to: wanted, ...(copy ? { copy: true } : {}) });
      settingsChanged(changed);
      storeChanged();
      setPlace('');
      setCopy(false);
      setOutcome({ kind: 'moved', where: changed.storage.display });
    } catch (error) {
      report(error);
      setOutcome({ kind: 'refused', error: toErrorInfo(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="form storage-move" onSubmit={(event) => void submit(event)} aria-busy={busy}>
      <div className="field">
        <label htmlFor={inputId} className="field__label">
          {t('settings.storage.moveTo')}
        </label>
        <div className="input-row">
          <input
            id={inputId}
            className="input mono"
            value={place}
            onChange={(event) => {
              setPlace(event.target.value);
              setOutcome(null);
            }}
            aria-describedby={hintId}
            aria-invalid={outcome?.kind === 'refused' || undefined}
            placeholder={t('settings.storage.movePlaceholder')}
            spellCheck={false}
            autoComplete="off"
          />
          <button type="submit" className="button" disabled={busy || !wanted}>
            {busy ? (copy ? t('settings.storage.copying') : t('settings.storage.moving')) : t('settings.storage.move')}
          </button>
        </div>
        <p id={hintId} className="field__hint">
          {t('settings.storage.moveHint')}
        </p>
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={copy} disabled={busy} onChange={(event) => setCopy(event.target.checked)} />
        <span>
          {t('settings.storage.copy')}
          <span className="field__hint storage-move__copy-hint">{t('settings.storage.copyHint', { where: settings.storage.display })}</span>
        </span>
      </label>
      {outcome?.kind === 'moved' && (
        <p className="success small" role="status">
          {t('settings.storage.moved', { where: outcome.where })}
        </p>
      )}
      {outcome?.kind === 'refused' && (
        <p className="inline-error small" role={outcome.local ? 'alert' : undefined}>
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
    <div className="field storage-writers">
      <span id={titleId} className="field__label">
        {t('settings.storage.writers', { days: WRITERS_DAYS })}
      </span>
      {writers.status === 'loading' && !writers.data && <Loading />}
      {writers.status === 'error' && <LoadFailed onRetry={writers.reload} />}
      {writers.data && writers.data.length === 0 && <p className="muted small">{t('settings.storage.writersNone')}</p>}
      {writers.data && writers.data.length > 0 && (
        <ul className="storage-writers__list" aria-labelledby={titleId}>
          {writers.data.map((writer) => (
            <li key={writer.machine} className="storage-writers__item">
              <span className="mono storage-writers__machine">{writer.machine}</span>
              {writer.machine === machine && <span className="badge">{t('settings.storage.thisComputer')}</span>}
              <span className="muted small">
                <time dateTime={writer.lastAt} title={format.dateTime(writer.lastAt)}>
                  {t('settings.storage.writerLast', { when: format.relative(writer.lastAt) })}
                </time>
                {' · '}
                {t('settings.storage.writerSaves', { n: writer.saves })}
              </span>
            </li>
          ))}
        </ul>
      )}
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
