/**
 * The host's settings plus the two preferences the UI applies itself: language and theme. Both take effect at
 * once (and are remembered locally so the next start does not flash) and are then saved with `settings:set`.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { EventMap, Settings } from '../../shared/ipc.js';
import { useReportError } from './alerts.js';
import { I18nProvider, systemLanguage, type Language } from './i18n.js';
import { useApi } from './memory.js';

export type LanguagePreference = Settings['language'];
export type ThemePreference = Settings['theme'];
export type Theme = 'light' | 'dark';

interface PreferencesValue {
  settings: Settings | null;
  /** `settings:get` failed (the error is in the alert region); `reloadSettings` asks again. */
  settingsFailed: boolean;
  reloadSettings(): void;
  /** Replaces the settings with the host's answer to `settings:set`. */
  settingsChanged(settings: Settings): void;
  languagePreference: LanguagePreference;
  themePreference: ThemePreference;
  language: Language;
  theme: Theme;
  setPreferences(change: { language?: LanguagePreference; theme?: ThemePreference }): void;
  /** The latest model download event, while the host fetches a model. */
  download: EventMap['onModelDownload'] | null;
}

const PreferencesContext = createContext<PreferencesValue | null>(null);
const STORAGE_KEY = 'session-memory.preferences';

function readStored(): { language?: LanguagePreference; theme?: ThemePreference } {
  try {
    const stored = JSON.parse(window.localStorage.getItem(STORAGE_KEY) ?? '{}') as { language?: unknown; theme?: unknown };
    return {
      language: stored.language === 'en' || stored.language === 'zh-CN' || stored.language === 'system' ? stored.language : undefined,
      theme: stored.theme === 'light' || stored.theme === 'dark' || stored.theme === 'system' ? stored.theme : undefined,
    };
  } catch {
    return {};
  }
}

function store(preferences: { language: LanguagePreference; theme: ThemePreference }): void {
  try {
    window.localStorage.setItem(STORAGE_KEY, JSON.stringify(preferences));
  } catch {
    // Storage can be unavailable (private mode); the host keeps the preference anyway.
  }
}

function useSystemTheme(): Theme {
  const query = typeof window.matchMedia === 'function' ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  const [dark, setDark] = useState(() => query?.matches ?? false);
  useEffect(() => {
    if (!query) return;
    const update = (): void => setDark(query.matches);
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, [query]);
  return dark ? 'dark' : 'light';
}

export function PreferencesProvider({ children }: { children: ReactNode }): ReactNode {
  const api = useApi();
  const report = useReportError();
  const [settings, setSettings] = useState<Settings | null>(null);
  const [settingsFailed, setSettingsFailed] = useState(false);
  const [settingsAttempt, setSettingsAttempt] = useState(0);
  const reloadSettings = useCallback(() => setSettingsAttempt((attempt) => attempt + 1), []);
  const [preferences, setPreferenceState] = useState(() => {
    const stored = readStored();
    return { language: stored.language ?? 'system', theme: stored.theme ?? 'system' } as { language: LanguagePreference; theme: ThemePreference };
  });
  const systemTheme = useSystemTheme();
  const [download, setDownload] = useState<EventMap['onModelDownload'] | null>(null);
  useEffect(() => api.on('onModelDownload', setDownload), [api]);

  const adopt = useCallback((next: Settings) => {
    setSettings(next);
    setPreferenceState({ language: next.language, theme: next.theme });
    store({ language: next.language, theme: next.theme });
  }, []);

  useEffect(() => {
    let current = true;
    setSettingsFailed(false);
    api['settings:get']({}).then(
      (loaded) => {
        if (current) adopt(loaded);
      },
      (error: unknown) => {
        if (!current) return;
        report(error);
        setSettingsFailed(true);
      },
    );
    return () => {
      current = false;
    };
  }, [api, adopt, report, settingsAttempt]);

  const setPreferences = useCallback(
    (change: { language?: LanguagePreference; theme?: ThemePreference }) => {
      setPreferenceState((current) => {
        const next = { ...current, ...change };
        store(next);
        return next;
      });
      api['settings:set'](change).then(adopt, report);
    },
    [api, adopt, report],
  );

  const language: Language = preferences.language === 'system' ? systemLanguage() : preferences.language;
  const theme: Theme = preferences.theme === 'system' ? systemTheme : preferences.theme;

  useEffect(() => {
    document.documentElement.lang = language;
    document.documentElement.dataset.theme = theme;
    document.documentElement.style.colorScheme = theme;
  }, [language, theme]);

  const value = useMemo<PreferencesValue>(
    () => ({
      settings,
      settingsFailed,
      reloadSettings,
      settingsChanged: adopt,
      languagePreference: preferences.language,
      themePreference: preferences.theme,
      language,
      theme,
      setPreferences,
      download,
    }),
    [settings, settingsFailed, reloadSettings, adopt, preferences, language, theme, setPreferences, download],
  );
  return (
    <PreferencesContext.Provider value={value}>
      <I18nProvider language={language}>{children}</I18nProvider>
    </PreferencesContext.Provider>
  );
}

export function usePreferences(): PreferencesValue {
  const value = useContext(PreferencesContext);
  if (!value) throw new Error('usePreferences outside PreferencesProvider');
  return value;
}
