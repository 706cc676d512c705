/** The window: navigation on the left, the alert region and the current view on the right. */
import { useEffect, useRef, type ReactNode } from 'react';
import type { MemoryApi } from '../../shared/ipc.js';
import { AlertRegion, AlertsProvider } from './alerts.js';
import { Icon, ProgressBar } from './components/ui.js';
import { DropProvider } from './drop.js';
import { LANGUAGE_NAMES, LANGUAGES, useLanguage, useT, type MessageKey } from './i18n.js';
import { ImportFlowProvider, useImportFlow } from './importFlow.js';
import { MemoryProvider } from './memory.js';
import { PreferencesProvider, usePreferences } from './preferences.js';
import { hrefFor, navigate, useRoute, type Route } from './router.js';
import { ChunkView } from './views/ChunkView.js';
import { DuplicatesView } from './views/DuplicatesView.js';
import { ImportView } from './views/ImportView.js';
import { SearchView } from './views/SearchView.js';
import { SessionsView } from './views/SessionsView.js';
import { SessionView } from './views/SessionView.js';
import { SettingsView } from './views/SettingsView.js';
import { SourcesView } from './views/SourcesView.js';

type Section = 'sessions' | 'search' | 'import' | 'sources' | 'duplicates' | 'settings';

const NAV: Array<{ section: Section; label: MessageKey; icon: 'sessions' | 'search' | 'import' | 'sources' | 'duplicates' | 'settings' }> = [
  { section: 'sessions', label: 'nav.sessions', icon: 'sessions' },
  { section: 'search', label: 'nav.search', icon: 'search' },
  { section: 'import', label: 'nav.import', icon: 'import' },
  { section: 'sources', label: 'nav.sources', icon: 'sources' },
  { section: 'duplicates', label: 'nav.duplicates', icon: 'duplicates' },
  { section: 'settings', label: 'nav.settings', icon: 'settings' },
];

const SECTION_HREF: Record<Section, string> = {
  sessions: hrefFor({ name: 'sessions' }),
  search: hrefFor({ name: 'search', query: '' }),
  import: hrefFor({ name: 'import' }),
  sources: hrefFor({ name: 'sources' }),
  duplicates: hrefFor({ name: 'duplicates' }),
  settings: hrefFor({ name: 'settings' }),
};

function sectionOf(route: Route): Section | null {
  switch (route.name) {
    case 'sessions':
    case 'session':
    case 'chunk':
      return 'sessions';
    case 'search':
      return 'search';
    case 'import':
      return 'import';
    case 'duplicates':
      return 'duplicates';
    case 'sources':
      return 'sources';
    case 'settings':
      return 'settings';
    case 'notFound':
      return null;
  }
}

function Sidebar({ route }: { route: Route }): ReactNode {
  const t = useT();
  const language = useLanguage();
  const flow = useImportFlow();
  const { theme, setPreferences } = usePreferences();
  const current = sectionOf(route);
  const otherTheme = theme === 'dark' ? 'light' : 'dark';
  return (
    <aside className="sidebar">
      <div className="brand">
        <span className="brand__mark" aria-hidden="true">
          <Icon name="memory" size={20} />
        </span>
        <span>
          <span className="brand__name">{t('app.name')}</span>
          <span className="brand__tagline">{t('app.tagline')}</span>
        </span>
      </div>
      <nav aria-label={t('nav.label')}>
        <ul className="nav">
          {NAV.map((item) => (
            <li key={item.section}>
              <a className="nav__link" href={SECTION_HREF[item.section]} aria-current={current === item.section ? 'page' : undefined}>
                <Icon name={item.icon} />
                <span>{t(item.label)}</span>
                {item.section === 'import' && flow.running && (
                  <>
                    <span className="nav__pulse" aria-hidden="true" title={t('nav.importRunning')} />
                    <span className="visually-hidden">{t('nav.importRunning')}</span>
                  </>
                )}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {flow.running && flow.progress && (
        <a className="sidebar__progress" href={hrefFor({ name: 'import' })}>
          <span className="small">{t('nav.importRunning')}</span>
          <ProgressBar value={flow.progress.fraction} label={t('nav.importRunning')} />
        </a>
      )}
      <div className="sidebar__footer">
        <div className="lang-switch" role="group" aria-label={t('language.toggle')}>
          {LANGUAGES.map((code) => (
            <button key={code} type="button" lang={code} className="lang-switch__option" aria-pressed={language === code} onClick={() => setPreferences({ language: code })}>
              {LANGUAGE_NAMES[code]}
            </button>
          ))}
        </div>
        <button
          type="button"
          className="icon-button"
          onClick={() => setPreferences({ theme: otherTheme })}
          aria-label={t('theme.toggle', { theme: t(otherTheme === 'dark' ? 'settings.theme.dark' : 'settings.theme.light') })}
          title={t('theme.toggle', { theme: t(otherTheme === 'dark' ? 'settings.theme.dark' : 'settings.theme.light') })}
        >
          <Icon name={theme === 'dark' ? 'sun' : 'moon'} />
        </button>
      </div>
    </aside>
  );
}

function NotFound({ path }: { path: string }): ReactNode {
  const t = useT();
  return (
    <div className="page">
      <div className="empty-state">
        <h1>{t('notFound.title')}</h1>
        <p>{t('notFound.body', { path })}</p>
        <a className="button" href={hrefFor({ name: 'sessions' })}>
          {t('notFound.back')}
        </a>
      </div>
    </div>
  );
}

function CurrentView({ route }: { route: Route }): ReactNode {
  switch (route.name) {
    case 'sessions':
      return <SessionsView />;
    case 'session':
      return <SessionView key={route.sessionId} sessionId={route.sessionId} tab={route.tab} />;
    case 'chunk':
      return <ChunkView key={route.chunkId} chunkId={route.chunkId} />;
    case 'search':
      return <SearchView query={route.query} />;
    case 'import':
      return <ImportView />;
    case 'duplicates':
      return <DuplicatesView />;
    case 'sources':
      return <SourcesView />;
    case 'settings':
      return <SettingsView />;
    case 'notFound':
      return <NotFound path={route.path} />;
  }
}

function Shell(): ReactNode {
  const t = useT();
  const route = useRoute();
  const flow = useImportFlow();
  const main = useRef<HTMLElement>(null);
  // Switching a session's tab is not a new page; everything else is.
  const pageKey = route.name === 'session' ? `session:${route.sessionId}` : hrefFor(route);
  // A new page starts at its top; when the link that was clicked is gone, keyboard focus moves into the page
  // instead of falling back to the start of the window.
  useEffect(() => {
    main.current?.scrollTo?.({ top: 0 });
    if (document.activeElement === document.body) main.current?.focus({ preventScroll: true });
  }, [pageKey]);
  return (
    <DropProvider
      fallback={{
        label: t('drop.overlay'),
        onFiles: (files) => {
          flow.addFiles(files);
          navigate({ name: 'import' });
        },
      }}
    >
      <a className="skip-link" href="#main" onClick={(event) => {
        event.preventDefault();
        main.current?.focus();
      }}>
        {t('app.skipToContent')}
      </a>
      <div className="app">
        <Sidebar route={route} />
        <main id="main" ref={main} className="main" tabIndex={-1}>
          <AlertRegion />
          <CurrentView route={route} />
        </main>
      </div>
    </DropProvider>
  );
}

/** The whole UI over one `MemoryApi` (the desktop bridge, the web server, or an in-memory one in tests). */
export function App({ api }: { api: MemoryApi }): ReactNode {
  return (
    <AlertsProvider>
      <MemoryProvider api={api}>
        <PreferencesProvider>
          <ImportFlowProvider>
            <Shell />
          </ImportFlowProvider>
        </PreferencesProvider>
      </MemoryProvider>
    </AlertsProvider>
  );
}
