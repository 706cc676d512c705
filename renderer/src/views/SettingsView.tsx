/**
 * Settings: where the memory lives (StorageCard.tsx), the embedding model (with its download), language and theme, a store
 * check, and how to connect an assistant. The host may refuse a change (another store's model, a bad path): its message is shown where the
 * change was made and in the alert region.
 */
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import type { VerifyResult } from '../../../shared/domain.js';
import type { Settings } from '../../../shared/ipc.js';
import type { ErrorInfo } from '../../../shared/errors.js';
import { toErrorInfo, useReportError } from '../alerts.js';
import { Loading, LoadFailed, PageHeader, ProgressBar } from '../components/ui.js';
import { useFormat } from '../format.js';
import { errorTitle, LANGUAGE_NAMES, LANGUAGES, systemLanguage, useT } from '../i18n.js';
import { useApi, useStoreVersion } from '../memory.js';
import { usePreferences, type LanguagePreference, type ThemePreference } from '../preferences.js';
import { ConnectAssistantCard } from './ConnectAssistantCard.js';
import { HooksCard } from './HooksCard.js';
import { StorageCard } from './StorageCard.js';

type ModelChoice = 'default' | 'offline' | 'local';

function modelChoiceOf(settings: Settings): ModelChoice {
  if (settings.model === settings.defaultModel) return 'default';
  if (settings.model === settings.offlineModel) return 'offline';
  return 'local';
}

type Outcome = { kind: 'saved' } | { kind: 'refused'; error: ErrorInfo } | null;

function OutcomeLine({ outcome }: { outcome: Outcome }): ReactNode {
  const t = useT();
  if (!outcome) return null;
  if (outcome.kind === 'saved') {
    return (
      <p className="success small" role="status">
        {t('settings.saved')}
      </p>
    );
  }
  return (
    <p className="inline-error small">
      <strong>{errorTitle(t, outcome.error.code)}</strong> {outcome.error.message}
    </p>
  );
}

/** Sends one change to the host; answers with what to show under the form. */
function useSettingsChange(): (change: { dataDir?: string; model?: string; redactSecrets?: boolean }) => Promise<Outcome> {
  const api = useApi();
  const report = useReportError();
  const { settingsChanged } = usePreferences();
  const { storeChanged } = useStoreVersion();
  return async (change) => {
    try {
      settingsChanged(await api['settings:set'](change));
      storeChanged();
      return { kind: 'saved' };
    } catch (error) {
      report(error);
      return { kind: 'refused', error: toErrorInfo(error) };
    }
  };
}

function ModelCard({ settings }: { settings: Settings }): ReactNode {
  const t = useT();
  const format = useFormat();
  const pathId = useId();
  const change = useSettingsChange();
  const { download } = usePreferences();
  const [choice, setChoice] = useState<ModelChoice>(() => modelChoiceOf(settings));
  const [localPath, setLocalPath] = useState(() => (modelChoiceOf(settings) === 'local' ? settings.model : ''));
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  const wanted = choice === 'default' ? settings.defaultModel : choice === 'offline' ? settings.offlineModel : localPath.trim();

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    if (!wanted) return;
    setBusy(true);
    setOutcome(await change({ model: wanted }));
    setBusy(false);
  };

  const downloading = download && download.status !== 'ready' && download.status !== 'done' ? download : null;
  const options: Array<{ value: ModelChoice; label: string; hint: string }> = [
    { value: 'default', label: t('settings.model.default'), hint: t('settings.model.defaultHint', { model: settings.defaultModel }) },
    { value: 'offline', label: t('settings.model.offline'), hint: t('settings.model.offlineHint', { model: settings.offlineModel }) },
    { value: 'local', label: t('settings.model.local'), hint: '' },
  ];
  return (
    <section className="card" aria-labelledby="model-title">
      <h2 id="model-title" className="card__title">
        {t('settings.model')}
      </h2>
      <p className="card__subtitle">{t('settings.modelHint')}</p>
      <dl className="kv">
        <div>
          <dt>{t('settings.model.inUse')}</dt>
          <dd className="mono">{settings.model}</dd>
        </div>
        <div>
          <dt>{t('settings.model.store')}</dt>
          <dd className="mono">{settings.storeModel ?? <span className="muted">{t('settings.model.storeNone')}</span>}</dd>
        </div>
      </dl>
      <form className="form" onSubmit={(event) => void submit(event)}>
        <fieldset className="choices">
          <legend className="visually-hidden">{t('settings.model')}</legend>
          {options.map((option) => (
            <label key={option.value} className={`choice${choice === option.value ? ' choice--selected' : ''}`}>
              <input type="radio" name="model" value={option.value} checked={choice === option.value} onChange={() => setChoice(option.value)} />
              <span>
                <span className="choice__label">{option.label}</span>
                {option.hint && <span className="choice__hint">{option.hint}</span>}
              </span>
            </label>
          ))}
        </fieldset>
        {choice === 'local' && (
          <div className="field">
            <label htmlFor={pathId} className="field__label">
              {t('settings.model.localPath')}
            </label>
            <input id={pathId} className="input mono" value={localPath} onChange={(event) => setLocalPath(event.target.value)} spellCheck={false} placeholder="/path/to/model" />
          </div>
        )}
        <div className="button-row button-row--start">
          <button type="submit" className="button button--primary" disabled={busy || !wanted || wanted === settings.model}>
            {t('settings.model.apply')}
          </button>
        </div>
        <OutcomeLine outcome={outcome} />
      </form>
      {downloading && (
        <div className="download">
          <p className="small">{t('settings.model.downloading', { file: downloading.file })}</p>
          <ProgressBar
            value={downloading.total > 0 ? downloading.loaded / downloading.total : null}
            label={t('settings.model.download')}
            valueText={`${format.bytes(downloading.loaded)} / ${format.bytes(downloading.total)}`}
          />
          <p className="muted small">
            {format.bytes(downloading.loaded)} / {format.bytes(downloading.total)}
          </p>
        </div>
      )}
      {download && !downloading && (
        <p className="success small" role="status">
          {t('settings.model.ready')}
        </p>
      )}
    </section>
  );
}

function AppearanceCard(): ReactNode {
  const t = useT();
  const languageId = useId();
  const { languagePreference, themePreference, setPreferences } = usePreferences();
  const themes: ThemePreference[] = ['system', 'light', 'dark'];
  const themeLabel = { system: t('settings.theme.system'), light: t('settings.theme.light'), dark: t('settings.theme.dark') };
  return (
    <section className="card" aria-labelledby="appearance-title">
      <h2 id="appearance-title" className="card__title">
        {t('settings.appearance')}
      </h2>
      <div className="form">
        <div className="field">
          <label htmlFor={languageId} className="field__label">
            {t('settings.language')}
          </label>
          <select id={languageId} className="input input--narrow" value={languagePreference} onChange={(event) => setPreferences({ language: event.target.value as LanguagePreference })}>
            <option value="system">
              {t('settings.language.system')} ({LANGUAGE_NAMES[systemLanguage()]})
            </option>
            {LANGUAGES.map((language) => (
              <option key={language} value={language} lang={language}>
                {LANGUAGE_NAMES[language]}
              </option>
            ))}
          </select>
        </div>
        <fieldset className="field">
          <legend className="field__label">{t('settings.theme')}</legend>
          <div className="segmented">
            {themes.map((theme) => (
              <label key={theme} className={`segmented__option${themePreference === theme ? ' segmented__option--selected' : ''}`}>
                <input type="radio" name="theme" value={theme} checked={themePreference === theme} onChange={() => setPreferences({ theme })} />
                {themeLabel[theme]}
              </label>
            ))}
          </div>
        </fieldset>
      </div>
    </section>
  );
}

function VerifyCard(): ReactNode {
  const t = useT();
  const api = useApi();
  const report = useReportError();
  const [result, setResult] = useState<VerifyResult | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const verify = async (repair: boolean): Promise<void> => {
    setConfirming(false);
    setBusy(true);
    try {
      setResult(await api['store:verify'](repair ? { repair: true } : {}));
    } catch (error) {
      report(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-labelledby="verify-title">
      <h2 id="verify-title" className="card__title">
        {t('settings.verify')}
      </h2>
      <p className="card__subtitle">{t('settings.verifyHint')}</p>
      <div className="button-row button-row--start">
        <button type="button" className="button" onClick={() => void verify(false)} disabled={busy}>
          {t('settings.verifyRun')}
        </button>
        {result && !result.ok && !confirming && (
          <button type="button" className="button button--danger" onClick={() => setConfirming(true)} disabled={busy}>
            {t('settings.verifyRepair')}
          </button>
        )}
      </div>
      {confirming && (
        <div className="confirm" role="alertdialog" aria-labelledby="repair-confirm-title" aria-describedby="repair-confirm-text">
          <p id="repair-confirm-title" className="confirm__title">
            {t('settings.repairConfirmTitle')}
          </p>
          <p id="repair-confirm-text" className="small">
            {t('settings.repairConfirmText')}
          </p>
          <div className="button-row button-row--start">
            <button type="button" className="button button--danger" onClick={() => void verify(true)}>
              {t('settings.repairConfirm')}
            </button>
            <button type="button" className="button" onClick={() => setConfirming(false)}>
              {t('common.cancel')}
            </button>
          </div>
        </div>
      )}
      {busy && <Loading />}
      {result && !busy && (
        <div role="status">
          {result.ok ? (
            <p className="success small">{t('settings.verifyOk', { sessions: result.sessions, messages: result.messages, chunks: result.chunks })}</p>
          ) : (
            <>
              <p className="inline-error small">{t('settings.verifyProblems', { n: result.problems.length })}</p>
              <ul className="problems">
                {result.problems.map((problem, index) => (
                  <li key={index}>{problem}</li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </section>
  );
}

/** Whether secrets are redacted before anything is stored (on unless the person turns it off). */
function PrivacyCard({ settings }: { settings: Settings }): ReactNode {
  const t = useT();
  const change = useSettingsChange();
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [busy, setBusy] = useState(false);
  const toggle = async (redactSecrets: boolean): Promise<void> => {
    setBusy(true);
    setOutcome(await change({ redactSecrets }));
    setBusy(false);
  };
  return (
    <section className="card" aria-labelledby="privacy-title">
      <h2 id="privacy-title" className="card__title">
        {t('settings.privacy')}
      </h2>
      <label className="checkbox">
        <input type="checkbox" checked={settings.redactSecrets} disabled={busy} onChange={(event) => void toggle(event.target.checked)} />
        {t('settings.redactSecrets')}
      </label>
      <p className="field__hint">{t('settings.redactSecretsHint')}</p>
      <OutcomeLine outcome={outcome} />
    </section>
  );
}

export function SettingsView(): ReactNode {
  const t = useT();
  const { settings, settingsFailed, reloadSettings } = usePreferences();
  return (
    <div className="page">
      <PageHeader title={t('settings.title')} subtitle={t('settings.subtitle')} />
      <div className="settings-grid">
        {settings ? (
          <>
            <StorageCard settings={settings} />
            <ModelCard settings={settings} />
            <PrivacyCard settings={settings} />
          </>
        ) : settingsFailed ? (
          <LoadFailed onRetry={reloadSettings} />
        ) : (
          <Loading />
        )}
        <AppearanceCard />
        <VerifyCard />
        {settings && <ConnectAssistantCard launch={settings.mcpServer} />}
        {settings && <HooksCard hook={settings.hookCommand} mcp={settings.mcpServer} />}
      </div>
    </div>
  );
}
