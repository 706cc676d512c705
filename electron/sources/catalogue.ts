/**
 * Where assistants keep their conversations on a person's machine: one entry per tool, as data.
 * An entry says where the tool's folders are (its own variable first, then its default places on
 * Linux, macOS and Windows) and what to pick under them: transcript files (globs) or a database.
 * A pick whose format the import pipeline does not read yet is listed (the person sees the source)
 * and its sync says so (`imports: false`); adding a format is adding or flipping an entry here.
 * This is the one description of these places: the importers read what they are handed.
 *
 * Plain data and path arithmetic: nothing here touches the disk.
 */
import path from 'node:path';
import { escapePath } from 'tinyglobby';

export interface PlaceContext {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  home: string;
}

/** One folder of a tool. `variant` tells the sources of one tool apart (`cursor` for Cline in Cursor). */
export interface SourceRoot {
  path: string;
  variant?: string;
  /** What to pick in this folder when it is not the tool's usual picks (a file the tool's variable names, Cursor's workspace databases). */
  picks?: SourcePick[];
  /** Listed only when it holds something (the home folder, where aider may have written a log). */
  onlyWhenFound?: boolean;
  /**
   * A folder the tool names in a file of its own (LM Studio's home pointer, Jan's settings) rather
   * than a fixed place: `path` is taken from that file when the sources are listed, and the root is
   * left out when the file is missing, names nothing, or names a folder another root of the tool has.
   */
  namedIn?: { file: string; folder: (content: string) => string | undefined };
}

export type SourcePick =
  /**
   * Transcript files, by globs relative to the root; each file is saved by the import pipeline.
   * `mayHoldNone`: a file that holds no message yet is common (a chat opened and left empty, which
   * the app writes at once) and is passed over without an error.
   */
  | {
      kind: 'files';
      globs: string[];
      ignore?: string[];
      imports: boolean;
      mayHoldNone?: boolean;
      /**
       * A file of one name passed over when a file of another name sits beside it: a copy of the same
       * conversation the tool also writes whole (Antigravity's `transcript.jsonl` beside `transcript_full.jsonl`).
       */
      passOverBeside?: Record<string, string>;
    }
  /** Folders read as a whole (opencode's `storage/`: one file per message and part); saved when any file in them changes. */
  | { kind: 'folder'; globs: string[]; imports: boolean }
  /**
   * A database written while the tool runs, polled by its change marker. `mayHoldNone`: databases
   * of that name that hold no conversation are common (Cursor's workspaces without a chat) and are
   * passed over without an error.
   */
  | { kind: 'database'; globs: string[]; imports: boolean; mayHoldNone?: boolean };

export interface SourceKind {
  /** Stable id: the source ids of `sources` start with it. */
  id: string;
  /** The tool's name as people know it. */
  tool: string;
  /** The tool's own variable that moves its folder, if it has one. */
  variable?: string;
  roots(context: PlaceContext): SourceRoot[];
  picks: SourcePick[];
  /** Folders a person names (aider keeps its log in each project); these tools have no default place. */
  personFolders?: boolean;
}

/** `%APPDATA%`, `~/Library/Application Support` or `$XDG_CONFIG_HOME`: where Electron apps such as VS Code keep user data. */
export function configHome({ env, platform, home }: PlaceContext): string {
  if (platform === 'win32') return env.APPDATA || path.win32.join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Application Support');
  return env.XDG_CONFIG_HOME || path.posix.join(home, '.config');
}

/** A path joined the way the platform whose places are listed joins them (tests list Windows places on Linux). */
export function joinFor(platform: NodeJS.Platform, ...parts: string[]): string {
  return platform === 'win32' ? path.win32.join(...parts) : path.posix.join(...parts);
}

/** A file a tool's variable names, as a root of its own: its folder, picking that file alone. */
function variableFile(platform: NodeJS.Platform, file: string, variant: string, kind: 'files' | 'database'): SourceRoot {
  const p = platform === 'win32' ? path.win32 : path.posix;
  return { path: p.dirname(file), variant, picks: [{ kind, globs: [escapePath(p.basename(file))], imports: true }] };
}

/** Whether a path is absolute on the platform whose places are listed. */
function isAbsoluteFor(platform: NodeJS.Platform, file: string): boolean {
  return platform === 'win32' ? path.win32.isAbsolute(file) : path.posix.isAbsolute(file);
}

function absoluteOrNone(platform: NodeJS.Platform, folder: string | undefined): string | undefined {
  return folder !== undefined && folder !== '' && isAbsoluteFor(platform, folder) ? folder : undefined;
}

/** `data_folder` of Jan's `settings.json`. */
function janDataFolder(settings: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(settings);
    const folder = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).data_folder : undefined;
    return typeof folder === 'string' ? folder.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** The tool's variable when set, else `<home>/<folder>`. */
function homeFolder(variable: string | undefined, folder: string) {
  return (context: PlaceContext): SourceRoot[] => {
    const own = variable ? context.env[variable] : undefined;
    return [{ path: own ? own : joinFor(context.platform, context.home, folder) }];
  };
}

/**
 * opencode's data folder (`folder` under the XDG data folder, on every system, Windows and macOS
 * included), and the database its own variable names, absolute or relative to that folder.
 */
function opencodeData(folder: string, variable: string) {
  return (context: PlaceContext): SourceRoot[] => {
    const data = joinFor(context.platform, context.env.XDG_DATA_HOME || joinFor(context.platform, context.home, '.local', 'share'), folder);
    const own = context.env[variable]?.trim();
    const database = own && own !== ':memory:' ? (isAbsoluteFor(context.platform, own) ? own : joinFor(context.platform, data, own)) : undefined;
    return [{ path: data }, ...(database ? [variableFile(context.platform, database, 'db', 'database')] : [])];
  };
}

/** VS Code and the editors built from it, with the folder names their user data lives under. */
const VS_CODE_EDITORS: Array<{ variant?: string; folder: string }> = [
  { folder: 'Code' },
  { variant: 'insiders', folder: 'Code - Insiders' },
  { variant: 'vscodium', folder: 'VSCodium' },
  { variant: 'cursor', folder: 'Cursor' },
  { variant: 'windsurf', folder: 'Windsurf' },
];

function globalStorage(extension: string) {
  return (context: PlaceContext): SourceRoot[] =>
    VS_CODE_EDITORS.map(({ variant, folder }) => ({
      path: joinFor(context.platform, configHome(context), folder, 'User', 'globalStorage', extension),
      ...(variant ? { variant } : {}),
    }));
}

/** VS Code's own chat keeps each workspace's sessions beside its other state, and those of windows without a folder together. */
const VS_CODE_CHAT_SESSIONS: SourcePick[] = [
  {
    kind: 'files',
    globs: ['workspaceStorage/*/chatSessions/*.json', 'workspaceStorage/*/chatSessions/*.jsonl', 'globalStorage/emptyWindowChatSessions/*.json', 'globalStorage/emptyWindowChatSessions/*.jsonl'],
    imports: true,
  },
];

// A task is read through its API history, with the panel messages beside it (see importers/tool-folders.ts).
const CLINE_TASKS: SourcePick[] = [{ kind: 'files', globs: ['tasks/*/api_conversation_history.json'], imports: true }];

/** Cline's CLI: `CLINE_SESSION_DATA_DIR`, else `sessions/` of `CLINE_DATA_DIR`, else `data/sessions/` of `CLINE_DIR` (`~/.cline`), as the CLI resolves them. */
function clineCliSessions({ env, platform, home }: PlaceContext): SourceRoot[] {
  const own = env.CLINE_SESSION_DATA_DIR?.trim();
  if (own) return [{ path: own }];
  const data = env.CLINE_DATA_DIR?.trim() || joinFor(platform, env.CLINE_DIR?.trim() || joinFor(platform, home, '.cline'), 'data');
  return [{ path: joinFor(platform, data, 'sessions') }];
}

export const SOURCE_CATALOGUE: readonly SourceKind[] = [
  {
    id: 'claude-code',
    tool: 'Claude Code',
    variable: 'CLAUDE_CONFIG_DIR',
    roots: homeFolder('CLAUDE_CONFIG_DIR', '.claude'),
    // Sub-agents' logs sit in `<project>/<session>/subagents/`: the same format, found by the same glob.
    picks: [{ kind: 'files', globs: ['projects/**/*.jsonl'], imports: true }],
  },
  {
    id: 'openclaw',
    tool: 'OpenClaw',
    variable: 'OPENCLAW_STATE_DIR',
    roots: (context) => {
      const own = context.env.OPENCLAW_STATE_DIR;
      const standard = joinFor(context.platform, context.home, '.openclaw');
      return [
        { path: own ? own : standard },
        // The standard folder stays a source when the variable moves the live one elsewhere: it holds what was written before.
        ...(own && own !== standard ? [{ path: standard, variant: 'default' }] : []),
        // Older installs, under the tool's earlier names.
        { path: joinFor(context.platform, context.home, '.clawdbot'), variant: 'clawdbot' },
        { path: joinFor(context.platform, context.home, '.moltbot'), variant: 'moltbot' },
      ];
    },
    picks: [
      // Since 2026.8 every agent's sessions, with their cold archives (`sessions/cold/*.jsonl.zst`, read through it).
      { kind: 'database', globs: ['agents/*/agent/openclaw-agent.sqlite'], imports: true },
      {
        kind: 'files',
        // Session files of earlier versions, reset and deleted sessions (`.zst` when compressed), and the
        // upgrade's leftovers: a leftover whose session the database holds has the same ids, so saves nothing new.
        globs: ['agents/*/sessions/*.jsonl', 'agents/*/sessions/*.jsonl.reset.*', 'agents/*/sessions/*.jsonl.deleted.*', 'agents/*/session-sqlite-import-archive/*.jsonl.imported-*'],
        // Compaction checkpoints are earlier copies of a session.
        ignore: ['agents/*/sessions/*.checkpoint.*.jsonl'],
        imports: true,
      },
    ],
  },
  {
    id: 'codex',
    tool: 'Codex CLI',
    variable: 'CODEX_HOME',
    roots: homeFolder('CODEX_HOME', '.codex'),
    // `sessions/YYYY/MM/DD/rollout-*.jsonl`, compressed ones `.jsonl.zst`; the first CLI wrote `sessions/rollout-*.json`.
    // Titles come from `session_index.jsonl` beside them.
    picks: [{ kind: 'files', globs: ['sessions/**/rollout-*.jsonl', 'sessions/**/rollout-*.jsonl.zst', 'sessions/rollout-*.json', 'archived_sessions/**/rollout-*.jsonl', 'archived_sessions/**/rollout-*.jsonl.zst'], imports: true }],
  },
  {
    id: 'gemini-cli',
    tool: 'Gemini CLI',
    variable: 'GEMINI_CLI_HOME',
    // GEMINI_CLI_HOME stands for the home folder; `.gemini` is under it.
    roots: (context) => [{ path: joinFor(context.platform, context.env.GEMINI_CLI_HOME || context.home, '.gemini') }],
    // Sub-agents' chats sit in a folder named after their parent session: `chats/<parent>/<id>.jsonl`.
    // A resume in another minute than the chat's file is named for leaves a file of that minute holding
    // only Gemini CLI's own context (0.61: the turns go on in the chat's file): no error.
    picks: [{ kind: 'files', globs: ['tmp/*/chats/session-*.json', 'tmp/*/chats/session-*.jsonl', 'tmp/*/chats/*/*.jsonl'], imports: true, mayHoldNone: true }],
  },
  {
    id: 'qwen-code',
    tool: 'Qwen Code',
    variable: 'QWEN_HOME',
    // QWEN_HOME moves the whole folder; QWEN_RUNTIME_DIR only what Qwen Code writes as it runs, the chats among it.
    roots: (context) => [{ path: context.env.QWEN_RUNTIME_DIR || context.env.QWEN_HOME || joinFor(context.platform, context.home, '.qwen') }],
    // `projects/<project path with dashes>/chats/<session id>.jsonl`.
    picks: [{ kind: 'files', globs: ['projects/*/chats/*.jsonl'], imports: true }],
  },
  {
    id: 'copilot-cli',
    tool: 'GitHub Copilot CLI',
    variable: 'COPILOT_HOME',
    roots: homeFolder('COPILOT_HOME', '.copilot'),
    // A folder per session, named by its id, with its events and the tool's own state beside them.
    picks: [{ kind: 'files', globs: ['session-state/*/events.jsonl'], imports: true }],
  },
  {
    id: 'antigravity',
    tool: 'Google Antigravity',
    // The IDE's folder; `antigravity` before it was renamed, `antigravity-cli` for its command-line agent.
    roots: (context) => [
      { path: joinFor(context.platform, context.home, '.gemini', 'antigravity-ide') },
      { path: joinFor(context.platform, context.home, '.gemini', 'antigravity'), variant: 'legacy' },
      { path: joinFor(context.platform, context.home, '.gemini', 'antigravity-cli'), variant: 'cli' },
    ],
    // A folder per conversation, named by its id; its log whole, and the copy with long fields cut only where there is no whole one.
    picks: [
      {
        kind: 'files',
        globs: ['brain/*/.system_generated/logs/transcript_full.jsonl', 'brain/*/.system_generated/logs/transcript.jsonl'],
        passOverBeside: { 'transcript.jsonl': 'transcript_full.jsonl' },
        imports: true,
      },
    ],
  },
  {
    id: 'continue',
    tool: 'Continue',
    variable: 'CONTINUE_GLOBAL_DIR',
    roots: homeFolder('CONTINUE_GLOBAL_DIR', '.continue'),
    picks: [{ kind: 'files', globs: ['sessions/*.json'], ignore: ['sessions/sessions.json'], imports: true }],
  },
  { id: 'cline', tool: 'Cline', variable: 'APPDATA / XDG_CONFIG_HOME', roots: globalStorage('saoudrizwan.claude-dev'), picks: CLINE_TASKS },
  { id: 'roo-code', tool: 'Roo Code', variable: 'APPDATA / XDG_CONFIG_HOME', roots: globalStorage('rooveterinaryinc.roo-cline'), picks: CLINE_TASKS },
  { id: 'kilo-code', tool: 'Kilo Code', variable: 'APPDATA / XDG_CONFIG_HOME', roots: globalStorage('kilocode.kilo-code'), picks: CLINE_TASKS },
  // A folder per session: its messages, and its record beside them (read for the title).
  { id: 'cline-cli', tool: 'Cline CLI', variable: 'CLINE_SESSION_DATA_DIR / CLINE_DATA_DIR / CLINE_DIR', roots: clineCliSessions, picks: [{ kind: 'files', globs: ['*/*.messages.json'], imports: true }] },
  {
    id: 'vscode-chat',
    tool: 'VS Code Chat (GitHub Copilot)',
    variable: 'APPDATA / XDG_CONFIG_HOME',
    // Cursor and Windsurf keep their chats elsewhere (Cursor's are the `cursor` source). Every editor has a
    // `User` folder: it is listed only once a chat was saved in it.
    roots: (context) =>
      VS_CODE_EDITORS.filter(({ variant }) => variant !== 'cursor' && variant !== 'windsurf').map(({ variant, folder }) => ({
        path: joinFor(context.platform, configHome(context), folder, 'User'),
        ...(variant ? { variant } : {}),
        onlyWhenFound: true,
      })),
    picks: VS_CODE_CHAT_SESSIONS,
  },
  {
    id: 'aider',
    tool: 'aider',
    variable: 'AIDER_CHAT_HISTORY_FILE',
    // aider writes its log in the folder it runs in: the home folder is the one known place (the
    // person adds project folders); AIDER_CHAT_HISTORY_FILE (`--chat-history-file`) names another file.
    roots: (context) => {
      const own = context.env.AIDER_CHAT_HISTORY_FILE?.trim();
      return [
        { path: context.home, onlyWhenFound: true, picks: [{ kind: 'files', globs: ['.aider.chat.history.md'], imports: true }] },
        ...(own && isAbsoluteFor(context.platform, own) ? [variableFile(context.platform, own, 'file', 'files')] : []),
      ];
    },
    personFolders: true,
    picks: [{ kind: 'files', globs: ['.aider.chat.history.md', '*/.aider.chat.history.md'], imports: true }],
  },
  {
    id: 'opencode',
    tool: 'opencode',
    variable: 'XDG_DATA_HOME',
    roots: opencodeData('opencode', 'OPENCODE_DB'),
    picks: [
      // 1.2 and later; `opencode-<channel>.db` for preview channels.
      { kind: 'database', globs: ['opencode.db', 'opencode-*.db'], imports: true },
      // Before 1.2: one JSON file per session, message and part, read as one folder.
      { kind: 'folder', globs: ['storage'], imports: true },
    ],
  },
  {
    // Kilo's CLI (and the Kilo Code extension built on it since 5.0) is a fork of opencode: the same database, named after it.
    id: 'kilo-cli',
    tool: 'Kilo CLI',
    variable: 'XDG_DATA_HOME',
    roots: opencodeData('kilo', 'KILO_DB'),
    picks: [{ kind: 'database', globs: ['kilo.db', 'kilo-*.db'], imports: true }],
  },
  {
    id: 'cursor',
    tool: 'Cursor',
    variable: 'APPDATA / XDG_CONFIG_HOME',
    roots: (context) => [
      { path: joinFor(context.platform, configHome(context), 'Cursor', 'User', 'globalStorage') },
      // Before 2025 each workspace kept its chats in its own database; most workspaces hold none.
      {
        path: joinFor(context.platform, configHome(context), 'Cursor', 'User', 'workspaceStorage'),
        variant: 'workspaces',
        picks: [{ kind: 'database', globs: ['*/state.vscdb'], imports: true, mayHoldNone: true }],
      },
    ],
    picks: [{ kind: 'database', globs: ['state.vscdb'], imports: true }],
  },
  {
    id: 'lmstudio',
    tool: 'LM Studio',
    // `~/.lmstudio` on every system since 0.3 (`%USERPROFILE%\.lmstudio` on Windows); installs from before keep theirs in `~/.cache/lm-studio`.
    roots: (context) => [
      { path: joinFor(context.platform, context.home, '.lmstudio') },
      { path: joinFor(context.platform, context.home, '.cache', 'lm-studio'), variant: 'cache' },
      // LM Studio finds its home through this file first (lmstudio-js `findLMStudioHome`): a home moved elsewhere.
      { path: '', variant: 'pointer', namedIn: { file: joinFor(context.platform, context.home, '.lmstudio-home-pointer'), folder: (content) => absoluteOrNone(context.platform, content.trim()) } },
    ],
    // Folders of chats are sub-folders of `conversations/`.
    picks: [{ kind: 'files', globs: ['conversations/**/*.conversation.json'], imports: true, mayHoldNone: true }],
  },
  {
    id: 'jan',
    tool: 'Jan',
    variable: 'JAN_DATA_FOLDER',
    roots: (context) => {
      const { env, platform, home } = context;
      const own = env.JAN_DATA_FOLDER?.trim();
      // Since 0.6 the system's data folder: `%APPDATA%`, `~/Library/Application Support`, `$XDG_DATA_HOME` (`~/.local/share`).
      const dataHome = platform === 'win32' || platform === 'darwin' ? configHome(context) : env.XDG_DATA_HOME || joinFor(platform, home, '.local', 'share');
      const standard = joinFor(platform, dataHome, 'Jan', 'data');
      return [
        { path: own ? own : standard },
        ...(own && own !== standard ? [{ path: standard, variant: 'default' }] : []),
        // Before 0.6 (Electron) Linux kept it among the settings; the first versions in `~/jan`.
        ...(platform === 'win32' || platform === 'darwin' ? [] : [{ path: joinFor(platform, configHome(context), 'Jan', 'data'), variant: 'legacy' }]),
        { path: joinFor(platform, home, 'jan'), variant: 'home', onlyWhenFound: true },
        // The data folder chosen in Jan's settings (`data_folder` in `Jan/settings.json` of the same system folder).
        { path: '', variant: 'settings', namedIn: { file: joinFor(platform, dataHome, 'Jan', 'settings.json'), folder: (content) => absoluteOrNone(platform, janDataFolder(content)) } },
      ];
    },
    picks: [{ kind: 'files', globs: ['threads/*/messages.jsonl'], imports: true, mayHoldNone: true }],
  },
];

/** The id of a source: the tool's id, and the variant after a dash when the tool has several places. */
export function sourceId(kind: SourceKind, root: SourceRoot): string {
  return root.variant ? `${kind.id}-${root.variant}` : kind.id;
}
