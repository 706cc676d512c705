/**
 * The importers' contract for hostile input, as checks that return the problems they find (so a
 * fuzz run can list every failing case, each with its seed, instead of stopping at the first).
 *
 * Either well-formed sessions, or an `ImportError` whose message is one line, names the file and
 * says what is wrong in words, not in the words of a JavaScript engine that tripped over it.
 */
import type { SessionInput } from '../../shared/domain.js';
import type { ErrorReport, FileReport, SandboxOutcome } from './sandbox.js';

const ROLES = new Set(['user', 'assistant', 'system', 'tool']);

/** Messages of errors the importers did not mean to throw. */
const INTERNAL_ERROR_TEXT = [
  /Cannot read propert/i,
  /Cannot set propert/i,
  /is not a function/,
  /is not iterable/,
  /is not defined/,
  /is not a constructor/,
  /Maximum call stack/,
  /Invalid time value/,
  /Invalid array length/,
  /Invalid string length/,
  /Cannot convert/,
  /undefined is not/,
  /null is not/,
  /Unexpected token/,
  /Unexpected end of JSON/,
  /in JSON at position/,
  /\[object Object\]/,
];

export function sessionProblems(sessions: readonly SessionInput[]): string[] {
  const problems: string[] = [];
  sessions.forEach((session, s) => {
    const where = `sessions[${s}]`;
    if (typeof session.sessionId !== 'string' || session.sessionId === '') problems.push(`${where}.sessionId is ${JSON.stringify(session.sessionId)}`);
    if (session.title !== undefined && typeof session.title !== 'string') problems.push(`${where}.title is ${typeof session.title}`);
    if (!Array.isArray(session.messages) || session.messages.length === 0) {
      problems.push(`${where} has no messages`);
      return;
    }
    session.messages.forEach((message, m) => {
      const at = `${where}.messages[${m}]`;
      if (!ROLES.has(message.role)) problems.push(`${at}.role is ${JSON.stringify(message.role)}`);
      if (typeof message.content !== 'string' || message.content === '') problems.push(`${at}.content is ${JSON.stringify(message.content)}`);
      if (message.msgId !== undefined && (typeof message.msgId !== 'string' || message.msgId === '')) problems.push(`${at}.msgId is ${JSON.stringify(message.msgId)}`);
      if (message.timestamp !== undefined && (typeof message.timestamp !== 'string' || Number.isNaN(Date.parse(message.timestamp)))) {
        problems.push(`${at}.timestamp is ${JSON.stringify(message.timestamp)}`);
      }
    });
  });
  return problems;
}

/** `file` is the path the importer was given; errors about entries of a ZIP name `file/entry`. */
export function importErrorProblems(error: ErrorReport, file: string): string[] {
  const problems: string[] = [];
  const text = `${error.constructorName}: ${error.message.slice(0, 300)}`;
  if (!error.importError || error.name !== 'ImportError') problems.push(`not an ImportError: ${text}${error.stack ? `\n${error.stack}` : ''}`);
  if (/[\r\n]/.test(error.message)) problems.push(`message is not one line: ${JSON.stringify(error.message.slice(0, 300))}`);
  if (!error.message.includes(file)) problems.push(`message does not name the file: ${text}`);
  if (error.file !== undefined && error.file !== file && !error.file.startsWith(`${file}/`)) problems.push(`error.file is ${JSON.stringify(error.file.slice(0, 200))}`);
  for (const pattern of INTERNAL_ERROR_TEXT) {
    if (pattern.test(error.message)) problems.push(`message is an internal JavaScript error: ${text}${error.stack ? `\n${error.stack}` : ''}`);
  }
  return problems;
}

function fileProblems(report: FileReport, file: string): string[] {
  const problems: string[] = [];
  if (report.error) problems.push(...importErrorProblems(report.error, file).map((p) => `${report.file}: ${p}`));
  if (report.sessions) {
    problems.push(...sessionProblems(report.sessions).map((p) => `${report.file}: ${p}`));
    if (!report.error && report.sessionCount !== undefined && report.sessionCount !== report.sessions.length) {
      problems.push(`${report.file}: sessionCount ${report.sessionCount} but ${report.sessions.length} sessions handed out`);
    }
  }
  return problems;
}

export function outcomeProblems(outcome: SandboxOutcome, file: string, budgetMs: number): string[] {
  switch (outcome.kind) {
    case 'timeout':
      return [`did not finish within ${budgetMs} ms (a cycle or a quadratic path?)`];
    case 'crashed':
      return [`an uncaught exception or unhandled rejection escaped the importer: ${outcome.error}`];
    case 'threw':
      return importErrorProblems(outcome.error, file);
    case 'files':
      return outcome.files.flatMap((report) => fileProblems(report, file));
  }
}

/** How a case ended, for the tallies printed at the end of a run. */
export function outcomeLabel(outcome: SandboxOutcome): string {
  switch (outcome.kind) {
    case 'timeout':
    case 'crashed':
      return outcome.kind;
    case 'threw':
      return outcome.error.importError ? `refused:${outcome.error.code ?? '?'}` : `threw:${outcome.error.constructorName}`;
    case 'files': {
      const refused = outcome.files.filter((f) => f.error);
      if (outcome.files.length > 0 && refused.length === outcome.files.length) return `refused:${refused[0]!.error!.code ?? '?'}`;
      return refused.length > 0 ? 'partly accepted' : 'accepted';
    }
  }
}
