/**
 * Transcripts in Markdown or plain text, one speaker label per turn, as people keep them by hand and
 * as popular chat exporters write them:
 *
 *   User: ...            **User**  ...        ### User          用户：...
 *   Assistant: ...       **Assistant:** ...   ### Assistant     助手：...
 *
 *   ## Message 1         ## 👤 User           #### You:
 *   **You** (<time>)     ...                  ...
 *   ...                  ---                  #### ChatGPT:
 *   ## Message 2         ## 🤖 Claude         ...
 *   **Claude** (<time>)  ...
 *
 * Labels name the user (User, Human, You, Me, 用户/用戶, 我), the assistant (Assistant, AI, or the
 * assistant's name: ChatGPT, Claude, Gemini, Copilot, Cursor, ...; 助手) or the system (System, 系统/系統), in any
 * case, after an optional emoji, with an optional ASCII or full-width colon. Bold labels may be
 * indented; headings by at most three spaces (four make a code block in Markdown).
 * A label starts a turn; every following line belongs to that speaker until the next label. A time in
 * parentheses after a bold label (`**You** (2025-03-02T09:14:05Z)`) is the message's timestamp, and
 * so is a line that is only a time right under a label (`### Human` then `*2026-03-01 17:38:47 EST*`,
 * as exporters of Claude Code logs write it); a zone's abbreviation is read by chrono-node.
 * Labels inside fenced code blocks are text; `## Message N` headings and `---` rules between turns are
 * not. A first-level heading before the first turn is the title (one that is only the session's id,
 * `# Chat Session \`<id>\``, names the session instead); a metadata preamble
 * (`**Conversation ID:** ...`, `Session ID: ...`, or the chat's address) names the session; other text before the first
 * turn is not part of the conversation.
 *
 * GitHub Copilot CLI's `/share` export (`# 🤖 Copilot CLI Session`, a quoted preamble with `**Session ID:**`
 * and `**Started:** 6/18/2026, 12:13:41 PM`) writes each part under a rule, its offset from the start
 * (`<sub>⏱️ 4s</sub>`) and a heading: `### 👤 User`, `### 💬 Copilot`, and for the rest `### ✅ \`view\``
 * (a tool's call and output), `### ⚠️ Warning`, `### ℹ️ Info`, which are not dialogue and are left out.
 * Each turn is dated by the start plus its offset; the start, written in local time without a zone, is
 * read as UTC, as other times without a zone are.
 *
 * No message ids: the engine derives them from role, content and position. The session id is the
 * preamble's conversation id, else derived from the file's base name, so re-importing an edited file
 * updates the same session.
 */
import type { MessageInput, Role, SessionInput } from '../../../shared/domain.js';
import { CodeFences } from '../fences.js';
import { titleFromMessages } from '../titles.js';
import { isoFromWrittenTime } from '../time.js';

const USER_NAMES = ['user', 'human', 'you', 'me', '用户', '用戶', '我'];
const ASSISTANT_NAMES = ['assistant', 'ai', 'bot', 'model', 'chatgpt', 'gpt', 'claude', 'gemini', 'bard', 'copilot', 'cursor', 'windsurf', 'cascade', 'codex', 'agent', 'grok', 'deepseek', 'perplexity', 'mistral', 'llama', 'qwen', 'kimi', '助手', '助理'];
const SYSTEM_NAMES = ['system', '系统', '系統'];
/** Names that are common words in prose too are labels only in headings and bold, never as `Name:`. */
const PLAIN_NAMES = ['user', 'human', 'you', 'assistant', 'system', 'chatgpt', 'claude', 'gemini', 'ai', '用户', '用戶', '助手', '系统', '系統'];

function roleOf(name: string): Role | undefined {
  const lower = name.toLowerCase();
  if (USER_NAMES.includes(lower)) return 'user';
  if (ASSISTANT_NAMES.includes(lower)) return 'assistant';
  if (SYSTEM_NAMES.includes(lower)) return 'system';
  return undefined;
}

const ALL_NAMES = `(${[...USER_NAMES, ...ASSISTANT_NAMES, ...SYSTEM_NAMES].join('|')})`;
const COLON = '[:：]';
/** An emoji before the name (`## 👤 User`, `## 🤖 Claude`), with its variation selectors and joiners. */
const EMOJI = '(?:[\\p{Extended_Pictographic}\\u{1F3FB}-\\u{1F3FF}\\uFE0F\\u200D]+\\s*)?';

/**
 * `### User`, `#### You:`, `## 🤖 Claude`: a heading of any level, the turn's text on the following
 * lines. The colon and the whitespace before it are one optional group: two whitespace runs around an
 * optional colon backtrack quadratically through a long run of spaces.
 */
const HEADING_LABEL = new RegExp(`^ {0,3}#{1,6}[ \\t]+${EMOJI}${ALL_NAMES}(?:[ \\t]*${COLON})?[ \\t]*$`, 'iu');
/** `**User**`, `**User:**`, `**User**:`, `**You** (<time>)`; text may follow on the same line. */
const BOLD_LABEL = new RegExp(`^[ \\t]*\\*\\*${EMOJI}${ALL_NAMES}[ \\t]*${COLON}?\\*\\*[ \\t]*${COLON}?(?:[ \\t]*\\(([^()]{4,40})\\))?[ \\t]?(.*)$`, 'iu');
/** `User: text`, indented by at most three spaces (four make a code block in Markdown). */
const PLAIN_LABEL = new RegExp(`^ {0,3}(${PLAIN_NAMES.join('|')})[ \\t]*${COLON}[ \\t]?(.*)$`, 'iu');
/** `## Message 3`: a numbering heading between turns. */
const MESSAGE_HEADING = /^[ \t]*#{1,6}[ \t]+Message[ \t]+\d+[ \t]*$/i;
/** `**Conversation ID:** abc`, `Session ID: abc`, `- **Chat ID**: abc`, `> - **Session ID:** \`abc\`` in the preamble. */
const ID_LINE = /^[ \t]*(?:>[ \t]*)?(?:[-*][ \t]+)?(?:\*\*)?(?:conversation|session|chat)[ \t_-]?id(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]*`?([\w.:-]{4,128})`?[ \t]*$/i;
/** `Source: https://chatgpt.com/c/<id>`, `Link: https://claude.ai/chat/<id>`: the conversation the export came from. */
const SOURCE_URL = /\b(?:chatgpt\.com|chat\.openai\.com|claude\.ai|gemini\.google\.com|grok\.com)\/(?:c|chat|app)\/([\w-]{8,128})/i;
/** `Date: 2025-09-07 09:22:16`, `- **Started:** 2026-03-01 17:38:47 EST` in the preamble: when the conversation began. */
const PREAMBLE_DATE = /^[ \t]*(?:>[ \t]*)?(?:[-*][ \t]+)?(?:\*\*)?(?:date|started|created)(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]*(\S.*?)[ \t]*$/i;
/** A heading a tool writes on every file it exports (claude-conversation-extractor's, Copilot CLI's), which names no conversation. */
const TOOL_HEADING = /^(?:Claude Conversation Log|🤖 Copilot CLI Session)$/iu;
/** Copilot CLI's `/share` export, by its heading. */
const COPILOT_SHARE_HEADING = /^🤖 Copilot CLI Session$/u;
/** `<sub>⏱️ 1m 5s</sub>`: how long after the start a part of a Copilot CLI export came. */
const ELAPSED_LINE = /^[ \t]*<sub>⏱️?[ \t]*((?:\d+[hms][ \t]*)+)<\/sub>[ \t]*$/u;
const HOUR_MINUTE_SECOND = { h: 3600, m: 60, s: 1 } as const;
/** `6/18/2026, 12:13:41 PM`: the start as Copilot CLI writes it (the en-US form of a local time). */
const US_TIME = /^(\d{1,2})\/(\d{1,2})\/(\d{4}),?[ \t]+(\d{1,2}):(\d{2})(?::(\d{2}))?[ \t]*([AP]M)$/i;
/** What Claude Code logs as the person's turn when they stop the model: no words of theirs. */
const INTERRUPTION = /^\[Request interrupted by user(?: for tool use)?\]$/;
/** `Chat Session \`2ff46cd5-…\``, `Session: abc123…`, `Conversation 8d1f…`: a heading that is only an id. */
const HEADING_ID = /^(?:chat[ \t]+)?(?:session|conversation)[ \t]*:?[ \t]*`?([\w.:-]{8,128})`?$/i;

/** A Copilot CLI start (`6/18/2026, 12:13:41 PM`) as UTC, else undefined. */
function isoFromUsTime(text: string): string | undefined {
  const time = US_TIME.exec(text.trim());
  if (!time) return undefined;
  const [, month, day, year, hour12, minute, second, half] = time;
  const hour = (Number(hour12) % 12) + (half!.toUpperCase() === 'PM' ? 12 : 0);
  const millis = Date.UTC(Number(year), Number(month) - 1, Number(day), hour, Number(minute), Number(second ?? 0));
  const date = new Date(millis);
  return Number.isNaN(millis) || date.getUTCDate() !== Number(day) ? undefined : date.toISOString();
}

interface SpeakerLine {
  role: Role;
  /** Text on the label's own line, if any. */
  rest: string;
  timestamp?: string;
}

function speakerOf(line: string): SpeakerLine | undefined {
  const heading = HEADING_LABEL.exec(line);
  if (heading) return { role: roleOf(heading[1]!)!, rest: '' };
  const bold = BOLD_LABEL.exec(line);
  if (bold) {
    const role = roleOf(bold[1]!)!;
    const timestamp = bold[2] === undefined ? undefined : isoFromWrittenTime(bold[2], 'line');
    // A parenthesis that is not a time is the start of the turn's text: `**User:** (laughs) ok`.
    const rest = bold[2] !== undefined && timestamp === undefined ? `(${bold[2]}) ${bold[3] ?? ''}`.trimEnd() : (bold[3] ?? '');
    return { role, rest, ...(timestamp ? { timestamp } : {}) };
  }
  const plain = PLAIN_LABEL.exec(line);
  return plain ? { role: roleOf(plain[1]!)!, rest: plain[2] ?? '' } : undefined;
}

/**
 * A line that is only a time, emphasised or not, with an optional zone (an offset, `Z`, or an
 * abbreviation such as `EST`): `*2026-03-01 17:38:47 EST*`, `_2025-03-02 09:14_`, `Time: 2025-03-02T09:14:05Z`.
 */
const TIME_LINE = /^[ \t]*([*_`]{0,2})[ \t]*(?:(?:time|timestamp|date|sent)[ \t]*:[ \t]*)?(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[ \t]*(?:Z|[+-]\d{2}:?\d{2}|[A-Z]{2,5}))?)[ \t]*\1[ \t]*$/i;
/** A time line whose zone is an abbreviation, which only chrono-node reads. */
const ZONE_NAME_TIME = /^[ \t]*[*_`]{0,2}[ \t]*(?:(?:time|timestamp|date|sent)[ \t]*:[ \t]*)?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?[ \t]*[A-Z]{2,5}\b/im;

/** Reads a time whose zone is an abbreviation (`2026-03-01 17:38:47 EST`). */
export type ZoneTimeReader = (text: string) => string | undefined;

/**
 * chrono-node's reader of zone abbreviations, loaded only for a text that has such a time line. A time
 * whose zone chrono does not know is not guessed at: it gives no timestamp.
 */
export async function zoneTimeReaderFor(text: string): Promise<ZoneTimeReader | undefined> {
  if (!ZONE_NAME_TIME.test(text)) return undefined;
  const chrono = await import('chrono-node');
  return (raw) => {
    const [found] = chrono.parse(raw, { instant: new Date(0), timezone: 'UTC' });
    if (!found || found.text.trim() !== raw.trim() || !found.start.isCertain('timezoneOffset')) return undefined;
    return found.start.date().toISOString();
  };
}

/** Whether the text has at least one speaker label outside code blocks. */
export function looksLikeMarkdownTranscript(text: string): boolean {
  const fences = new CodeFences();
  for (const line of text.split(/\r?\n/)) {
    if (fences.step(line) === 'text' && speakerOf(line)) return true;
  }
  return false;
}

/** @param baseName the file name without folders, e.g. `chat-2024-05-01.md`. */
export function mapMarkdownTranscript(text: string, baseName: string, zoneTime?: ZoneTimeReader): SessionInput {
  /** `left` marks a part that is no turn of the dialogue (a Copilot CLI tool call, warning or note). */
  const turns: Array<{ role: Role; lines: string[]; timestamp?: string; left?: boolean }> = [];
  /** Set for a Copilot CLI export: the offset, in seconds, of the part whose heading comes next. */
  let copilotShare = false;
  let elapsed: number | undefined;
  let title: string | undefined;
  let conversationId: string | undefined;
  /** Whether the heading was only the session's id: the person's first line is the title then. */
  let idHeading = false;
  /** When the preamble says the conversation began, for a file whose turns carry no time. */
  let startedAt: string | undefined;
  const fences = new CodeFences();

  for (const line of text.split(/\r?\n/)) {
    const current = turns.at(-1);
    const code = fences.step(line) !== 'text';
    if (copilotShare && !code) {
      const offset = ELAPSED_LINE.exec(line);
      if (offset) {
        elapsed = [...offset[1]!.matchAll(/(\d+)([hms])/g)].reduce((sum, [, count, unit]) => sum + Number(count) * HOUR_MINUTE_SECOND[unit as keyof typeof HOUR_MINUTE_SECOND], 0);
        continue;
      }
      if (elapsed !== undefined && /^#{1,6}[ \t]/.test(line)) {
        const part = speakerOf(line);
        const at = startedAt === undefined ? undefined : new Date(Date.parse(startedAt) + elapsed * 1000).toISOString();
        turns.push(part ? { role: part.role, lines: [], ...(at ? { timestamp: at } : {}) } : { role: 'tool', lines: [], left: true });
        elapsed = undefined;
        continue;
      }
    }
    const speaker = code ? undefined : speakerOf(line);
    if (speaker) {
      turns.push({ role: speaker.role, lines: speaker.rest === '' ? [] : [speaker.rest], ...(speaker.timestamp ? { timestamp: speaker.timestamp } : {}) });
    } else if (!code && MESSAGE_HEADING.test(line)) {
      // Numbering between turns, not text of the turn before.
      continue;
    } else if (current) {
      // A time alone under a label is the turn's time, not its text.
      const time = !code && current.timestamp === undefined && current.lines.every((kept) => kept.trim() === '') ? TIME_LINE.exec(line)?.[2] : undefined;
      const timestamp = time === undefined ? undefined : (isoFromWrittenTime(time, 'line') ?? zoneTime?.(time));
      if (timestamp !== undefined) current.timestamp = timestamp;
      else current.lines.push(line);
    } else {
      const heading = title === undefined ? headingText(line) : undefined;
      // `# Chat Session \`<id>\``: a heading that is only the session's id names it, and is no title.
      const headingId = heading === undefined ? undefined : HEADING_ID.exec(heading)?.[1];
      if (headingId !== undefined) {
        conversationId ??= headingId;
        idHeading = true;
      } else if (heading !== undefined && TOOL_HEADING.test(heading)) {
        idHeading = true;
        copilotShare ||= COPILOT_SHARE_HEADING.test(heading);
      }
      else if (heading !== undefined) title = heading;
      conversationId ??= ID_LINE.exec(line)?.[1] ?? SOURCE_URL.exec(line)?.[1];
      const date = startedAt === undefined ? PREAMBLE_DATE.exec(line)?.[1] : undefined;
      // A day alone (`**Date:** 2025-01-15`) dates it to that day's start, in UTC.
      const day = date !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(date) ? `${date} 00:00` : date;
      if (day !== undefined) startedAt = isoFromWrittenTime(day, 'line') ?? zoneTime?.(day) ?? (copilotShare ? isoFromUsTime(day) : undefined);
    }
  }

  const messages: MessageInput[] = turns
    .filter((turn) => turn.left !== true)
    .map((turn): MessageInput => ({ role: turn.role, content: turnText(turn.lines), ...(turn.timestamp ? { timestamp: turn.timestamp } : {}) }))
    .filter((message) => message.content !== '' && !(message.role === 'user' && INTERRUPTION.test(message.content)));
  const undated = messages.every((message) => message.timestamp === undefined);
  if (startedAt !== undefined && undated && messages[0]) messages[0] = { ...messages[0], timestamp: startedAt };
  const stem = baseName.replace(/\.[^.]*$/, '') || baseName;
  return { sessionId: `markdown:${conversationId ?? stem}`, title: title ?? (idHeading ? titleFromMessages(messages) : undefined) ?? stem, source: 'markdown', messages };
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
  while (kept.length > 0 && (kept[0]!.trim() === '' || isRule(kept[0]!))) kept.shift();
  return kept.join('\n').trimEnd();
}
