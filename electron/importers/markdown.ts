/**
 * Transcripts people keep by hand, in Markdown or plain text, one speaker label per turn:
 *
 *   User: ...            **User**  ...        ### User          用户：...
 *   Assistant: ...       **Assistant:** ...   ### Assistant     助手：...
 *
 * Labels: User / Human, Assistant, System (any case), 用户 / 助手 / 系统, with an ASCII or full-width
 * colon. A label starts a turn; every following line belongs to that speaker until the next label.
 * Labels inside fenced code blocks are text. A first-level heading before the first turn is the
 * title; other text before the first turn is not part of the conversation.
 *
 * No message ids: the engine derives them from role, content and position. The session id is
 * derived from the file's base name, so re-importing an edited file updates the same session.
 */
import type { MessageInput, Role, SessionInput } from '../../shared/domain.js';

const SPEAKER_ROLES: Record<string, Role> = {
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  system: 'system',
  用户: 'user',
  助手: 'assistant',
  系统: 'system',
};
const NAMES = '(user|human|assistant|system|用户|助手|系统)';
const COLON = '[:：]';

/**
 * `### User`, heading of any level, the turn's text on the following lines. The colon and the
 * whitespace before it are one optional group: two whitespace runs around an optional colon
 * backtrack quadratically through a long run of spaces.
 */
const HEADING_LABEL = new RegExp(`^#{1,6}\\s+${NAMES}(?:\\s*${COLON})?\\s*$`, 'i');
/** `**User**`, `**User:**`, `**User**:`, text may follow on the same line. */
const BOLD_LABEL = new RegExp(`^\\*\\*${NAMES}\\s*${COLON}?\\*\\*\\s*${COLON}?\\s?(.*)$`, 'i');
/** `User: text`. */
const PLAIN_LABEL = new RegExp(`^${NAMES}\\s*${COLON}\\s?(.*)$`, 'i');
const FENCE = /^\s{0,3}(```|~~~)/;

interface SpeakerLine {
  role: Role;
  /** Text on the label's own line, if any. */
  rest: string;
}

function speakerOf(line: string): SpeakerLine | undefined {
  const match = HEADING_LABEL.exec(line) ?? BOLD_LABEL.exec(line) ?? PLAIN_LABEL.exec(line);
  if (!match) return undefined;
  const role = SPEAKER_ROLES[match[1]!.toLowerCase()];
  return role === undefined ? undefined : { role, rest: match[2] ?? '' };
}

/** Whether the text has at least one speaker label outside code blocks. */
export function looksLikeMarkdownTranscript(text: string): boolean {
  let inFence = false;
  for (const line of text.split(/\r?\n/)) {
    if (FENCE.test(line)) inFence = !inFence;
    else if (!inFence && speakerOf(line)) return true;
  }
  return false;
}

/** @param baseName the file name without folders, e.g. `chat-2024-05-01.md`. */
export function mapMarkdownTranscript(text: string, baseName: string): SessionInput {
  const turns: Array<{ role: Role; lines: string[] }> = [];
  let title: string | undefined;
  let inFence = false;

  for (const line of text.split(/\r?\n/)) {
    const current = turns.at(-1);
    if (FENCE.test(line)) inFence = !inFence;
    const speaker = inFence || FENCE.test(line) ? undefined : speakerOf(line);
    if (speaker) {
      turns.push({ role: speaker.role, lines: speaker.rest === '' ? [] : [speaker.rest] });
    } else if (current) {
      current.lines.push(line);
    } else {
      const heading = title === undefined ? headingText(line) : undefined;
      if (heading !== undefined) title = heading;
    }
  }

  const messages: MessageInput[] = turns
    .map((turn) => ({ role: turn.role, content: turnText(turn.lines) }))
    .filter((message) => message.content !== '');
  const stem = baseName.replace(/\.[^.]*$/, '') || baseName;
  return { sessionId: `markdown:${stem}`, title: title ?? stem, source: 'markdown', messages };
}

/**
 * A thematic break (`---`, `* * *`, `___`): what `/^\s{0,3}([-*_])(\s*\1){2,}\s*$/` matches, checked
 * without that expression, whose backtracking overflows the stack on a line of a million dashes.
 */
function isRule(line: string): boolean {
  const body = line.replace(/^\s{0,3}/, '');
  const marker = body[0];
  if (marker !== '-' && marker !== '*' && marker !== '_') return false;
  const gaps = body.split(marker);
  return gaps.length > 3 && gaps.every((gap) => gap.trim() === '');
}

/**
 * The text of a first-level heading (`# Title`, `# Title ##`): what `/^#\s+(.+?)\s*#*\s*$/` captures,
 * found without that expression, which backtracks quadratically through a long run of `#` or
 * whitespace followed by anything else (it took minutes on a 4 MB line).
 */
function headingText(line: string): string | undefined {
  if (!/^#\s/.test(line)) return undefined;
  let start = 1;
  while (start < line.length && /\s/.test(line[start]!)) start++;
  if (start === line.length) {
    // Only whitespace after the '#': the expression takes the last character it can (past the first space).
    for (let i = line.length - 1; i >= 2; i--) if (!LINE_TERMINATOR.test(line[i]!)) return line[i];
    return undefined;
  }
  // Trailing whitespace, closing hashes, then the whitespace before them.
  let end = line.length;
  while (end > start && /\s/.test(line[end - 1]!)) end--;
  while (end > start && line[end - 1] === '#') end--;
  while (end > start && /\s/.test(line[end - 1]!)) end--;
  const title = line.slice(start, Math.max(end, start + 1));
  // `.` does not match line terminators (a lone \r inside a line).
  return LINE_TERMINATOR.test(title) ? undefined : title;
}

const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/** The turn's lines without surrounding blank lines and without the rules people put between turns. */
function turnText(lines: string[]): string {
  const kept = [...lines];
  while (kept.length > 0 && (kept.at(-1)!.trim() === '' || isRule(kept.at(-1)!))) kept.pop();
  while (kept.length > 0 && kept[0]!.trim() === '') kept.shift();
  return kept.join('\n').trimEnd();
}
