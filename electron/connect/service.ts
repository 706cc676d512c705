/**
 * `session-memory service install|remove`: `sync --watch` as a user service, for people who do not
 * keep the app open. A systemd user unit on Linux, a launchd agent on macOS, a task run at logon on
 * Windows. The files are written here (HOME and platform come in, so tests write into a fake home);
 * the system's own command is run only where it exists, else the person is told what to run.
 */
import { spawnSync } from 'node:child_process';
import type { McpLaunch } from '../../shared/ipc.js';
import { joinFor, type PlaceContext } from '../sources/catalogue.js';
import { planOwnFile, planChanges, writePlans, type FilePlan } from './configFile.js';

export const SERVICE_NAME = 'session-memory';
export const LAUNCHD_LABEL = 'app.sessionmemory.sync';
export const WINDOWS_TASK = 'Session Memory sync';

export interface ServiceOptions extends PlaceContext {
  /** `sync --watch` as the service runs it. */
  sync: McpLaunch;
  remove?: boolean;
  dryRun?: boolean;
  /** The user's id, for launchctl's `gui/<uid>` domain. */
  uid?: number;
  /** Runs a system command; the default runs it when it is on PATH. Returns null when it is not there. */
  run?: (command: string, args: string[]) => { status: number; output: string } | null;
}

export interface ServiceResult {
  platform: NodeJS.Platform;
  action: 'install' | 'remove';
  dryRun: boolean;
  /** The service file (the unit, the agent's plist, the task's script). */
  file: string;
  /** What the file holds once installed (null on remove). */
  content: string | null;
  changed: boolean;
  /** The system commands, as run (or to run, when the system has none of them or on a dry run). */
  commands: Array<{ command: string; args: string[]; status: number | null; output?: string; mayFail?: boolean }>;
  notes: string[];
}

/** systemd's quoting of one ExecStart word. */
function systemdWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `"${word.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function systemdUnit(sync: McpLaunch): string {
  return [
    '[Unit]',
    'Description=Session Memory: save assistants\' conversations as they change (sync --watch)',
    '',
    '[Service]',
    `ExecStart=${[sync.command, ...sync.args].map(systemdWord).join(' ')}`,
    ...Object.entries(sync.env).map(([key, value]) => `Environment=${systemdWord(`${key}=${value}`)}`),
    'Restart=on-failure',
    'RestartSec=30',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function launchdAgent(sync: McpLaunch, logFile: string): string {
  const env = Object.entries(sync.env);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    `  <key>Label</key><string>${LAUNCHD_LABEL}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...[sync.command, ...sync.args].map((a) => `    <string>${xml(a)}</string>`),
    '  </array>',
    ...(env.length > 0 ? ['  <key>EnvironmentVariables</key>', '  <dict>', ...env.map(([k, v]) => `    <key>${xml(k)}</key><string>${xml(v)}</string>`), '  </dict>'] : []),
    '  <key>RunAtLoad</key><true/>',
    '  <key>KeepAlive</key><dict><key>SuccessfulExit</key><false/></dict>',
    '  <key>ThrottleInterval</key><integer>30</integer>',
    `  <key>StandardOutPath</key><string>${xml(logFile)}</string>`,
    `  <key>StandardErrorPath</key><string>${xml(logFile)}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

/** cmd.exe's quoting of one word. */
function cmdWord(word: string): string {
  return /^[\w@%+=:,./\\-]+$/.test(word) ? word : `"${word.replace(/"/g, '""')}"`;
}

function windowsScript(sync: McpLaunch): string {
  return ['@echo off', ...Object.entries(sync.env).map(([k, v]) => `set "${k}=${v}"`), `${[sync.command, ...sync.args].map(cmdWord).join(' ')}`, ''].join('\r\n');
}

function servicePlace(options: PlaceContext): { file: string; content: (sync: McpLaunch) => string } {
  const { platform, home, env } = options;
  if (platform === 'darwin') {
    const log = joinFor(platform, home, 'Library', 'Logs', 'session-memory-sync.log');
    return { file: joinFor(platform, home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`), content: (sync) => launchdAgent(sync, log) };
  }
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA || joinFor(platform, home, 'AppData', 'Local');
    return { file: joinFor(platform, local, 'Session Memory', 'sync-watch.cmd'), content: windowsScript };
  }
  const config = env.XDG_CONFIG_HOME || joinFor(platform, home, '.config');
  return { file: joinFor(platform, config, 'systemd', 'user', `${SERVICE_NAME}.service`), content: systemdUnit };
}

function systemCommands(options: ServiceOptions, file: string, remove: boolean): Array<{ command: string; args: string[]; mayFail?: boolean }> {
  if (options.platform === 'darwin') {
    const domain = `gui/${options.uid ?? process.getuid?.() ?? 501}`;
    // bootout first: an agent already loaded keeps its old definition until it is booted out.
    return remove
      ? [{ command: 'launchctl', args: ['bootout', `${domain}/${LAUNCHD_LABEL}`] }]
      : [
          { command: 'launchctl', args: ['bootout', `${domain}/${LAUNCHD_LABEL}`], mayFail: true },
          { command: 'launchctl', args: ['bootstrap', domain, file] },
        ];
  }
  if (options.platform === 'win32') {
    return remove
      ? [
          { command: 'schtasks', args: ['/End', '/TN', WINDOWS_TASK], mayFail: true },
          { command: 'schtasks', args: ['/Delete', '/TN', WINDOWS_TASK, '/F'] },
        ]
      : [
          { command: 'schtasks', args: ['/Create', '/TN', WINDOWS_TASK, '/SC', 'ONLOGON', '/RL', 'LIMITED', '/F', '/TR', `"${file}"`] },
          { command: 'schtasks', args: ['/Run', '/TN', WINDOWS_TASK] },
        ];
  }
  return remove
    ? [
        { command: 'systemctl', args: ['--user', 'disable', '--now', `${SERVICE_NAME}.service`] },
        { command: 'systemctl', args: ['--user', 'daemon-reload'] },
      ]
    : [
        { command: 'systemctl', args: ['--user', 'daemon-reload'] },
        { command: 'systemctl', args: ['--user', 'enable', '--now', `${SERVICE_NAME}.service`] },
        // A unit already running keeps its old command line until restarted.
        { command: 'systemctl', args: ['--user', 'restart', `${SERVICE_NAME}.service`] },
      ];
}

/** Runs a command when it is on PATH (spawnSync reports ENOENT otherwise). */
function runWhenPresent(command: string, args: string[]): { status: number; output: string } | null {
  const result = spawnSync(command, args, { encoding: 'utf8', windowsHide: true, timeout: 30_000 });
  if (result.error && (result.error as NodeJS.ErrnoException).code === 'ENOENT') return null;
  return { status: result.status ?? 1, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() };
}

export async function installService(options: ServiceOptions): Promise<ServiceResult> {
  const remove = Boolean(options.remove);
  const place = servicePlace(options);
  const plan: FilePlan = await planOwnFile(place.file, remove ? null : place.content(options.sync), 'service');
  const changed = planChanges(plan);
  const commands: ServiceResult['commands'] = [];
  const notes: string[] = [];
  const wanted = systemCommands(options, place.file, remove);
  if (options.dryRun) {
    for (const c of wanted) commands.push({ ...c, status: null });
  } else {
    // Stop the service before its file goes; start it once its file is there.
    const before = remove ? wanted : [];
    const after = remove ? [] : wanted;
    const run = options.run ?? runWhenPresent;
    let missing = false;
    const runAll = (list: typeof wanted) => {
      for (const c of list) {
        if (missing) {
          commands.push({ ...c, status: null });
          continue;
        }
        const result = run(c.command, c.args);
        if (result === null) {
          missing = true;
          commands.push({ ...c, status: null });
          continue;
        }
        commands.push({ ...c, status: result.status, ...(result.output ? { output: result.output } : {}) });
      }
    };
    runAll(before);
    await writePlans([plan]);
    runAll(after);
    if (missing) notes.push(`${wanted[0]!.command} is not on this computer: run the commands below yourself${remove ? '' : ', or start `session-memory sync --watch` another way'}`);
  }
  return { platform: options.platform, action: remove ? 'remove' : 'install', dryRun: Boolean(options.dryRun), file: place.file, content: plan.after, changed, commands, notes };
}

export function describeService(result: ServiceResult): string[] {
  const lines: string[] = [];
  const what = result.action === 'remove' ? 'removed' : 'installed';
  if (result.dryRun) {
    lines.push(`${result.file}: would be ${what} (dry run: nothing written or run)`);
    if (result.content !== null) lines.push(...result.content.trimEnd().split(/\r?\n/).map((line) => `  | ${line}`));
  }
  else lines.push(`${result.file}: ${result.changed ? what : `already ${what}; file unchanged`}`);
  for (const note of result.notes) lines.push(note);
  for (const c of result.commands) {
    const shown = [c.command, ...c.args].join(' ');
    if (c.status === null) lines.push(`  to run: ${shown}`);
    else lines.push(`  ran: ${shown}${c.status === 0 || c.mayFail ? '' : ` (exit status ${c.status}${c.output ? `: ${c.output.split('\n')[0]}` : ''})`}`);
  }
  return lines;
}
