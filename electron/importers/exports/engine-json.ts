/**
 * The project's own transcript JSON, as the CLI documents it:
 *
 *   {"session_id": "...", "title": "...", "messages": [{"msg_id": "...", "role": "user", "content": "...", "speaker": "...", "timestamp": "..."}]}
 *
 * or an array of such sessions. Keys are snake_case as written; camelCase `sessionId` / `msgId`
 * are accepted too, since people write this format by hand or from scripts. `msg_id` and
 * `timestamp` are optional (the engine derives ids from role, content and position). `speaker` (or
 * `name`, or a string `author`, as other writers call it) is who said it, in a chat between people
 * (a tool message's `name` is the tool's, and is not read).
 * Validated with zod; the error names the first problem by its path (`messages[3].content`). zod
 * loads with the first such file (readers/lazyPackage.ts): a hook reading a coding agent's log does
 * not load it.
 */
import type * as z from 'zod';
import { ROLES, type Role, type SessionInput } from '../../../shared/domain.js';
import { ShapeError } from '../errors.js';
import { at, isObject } from '../shape.js';
import { loadPackage } from '../readers/lazyPackage.js';

export function isEngineSession(value: unknown): boolean {
  return isObject(value) && ('session_id' in value || 'sessionId' in value || Array.isArray(value.messages));
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

const missingOr = (problem: string) => (issue: { input: unknown }) => (issue.input === undefined ? 'is missing' : `${problem}${found(issue.input)}`);

function buildSessionSchema() {
  const { z } = loadPackage<typeof import('zod')>('zod');
  const optionalId = z.string({ error: missingOr('must be a string') }).min(1, { error: 'must be a non-empty string' }).optional();

  const messageSchema = z.object(
    {
      msg_id: optionalId,
      msgId: optionalId,
      role: z.enum(ROLES as [Role, ...Role[]], { error: missingOr(`must be one of ${ROLES.join(', ')}`) }),
      content: z.string({ error: missingOr('must be a non-empty string') }).min(1, { error: 'must be a non-empty string' }),
      speaker: z.string({ error: missingOr('must be a string') }).nullish(),
      // Other writers name who said it `name` or `author`; only a string is a name (ChatGPT's `author` is an object).
      name: z.unknown().optional(),
      author: z.unknown().optional(),
      timestamp: z
        .string({ error: missingOr('must be an ISO 8601 string') })
        .refine((value) => ISO_8601.test(value) && !Number.isNaN(Date.parse(value)), { error: (issue) => `must be an ISO 8601 date-time${found(issue.input)}` })
        .nullish(),
    },
    { error: missingOr('must be an object') },
  );

  return z
    .object(
      {
        session_id: optionalId,
        sessionId: optionalId,
        title: z.string({ error: missingOr('must be a string') }).nullish(),
        source: z.string({ error: missingOr('must be a string') }).nullish(),
        messages: z.array(messageSchema, { error: missingOr('must be an array') }),
      },
      { error: missingOr('must be an object') },
    )
    .check((context) => {
      if (context.value.session_id === undefined && context.value.sessionId === undefined) {
        context.issues.push({ code: 'custom', path: ['session_id'], message: 'is missing (neither session_id nor sessionId is set)', input: context.value });
      }
    });
}

let sessionSchema: ReturnType<typeof buildSessionSchema> | undefined;

export function mapEngineSession(value: unknown, where: string, fallbackSessionId?: string): SessionInput {
  const given = fallbackSessionId && typeof value === 'object' && value !== null && !('session_id' in value) && !('sessionId' in value) ? { ...value, session_id: fallbackSessionId } : value;
  sessionSchema ??= buildSessionSchema();
  const result = sessionSchema.safeParse(given);
  if (!result.success) throw new ShapeError(describeIssues(result.error.issues, where));
  const session = result.data;
  const title = session.title ?? undefined;
  return {
    sessionId: (session.session_id ?? session.sessionId)!,
    ...(title ? { title } : {}),
    // A file the engine exported keeps the source it was first imported from.
    source: session.source ?? 'json',
    messages: session.messages.map((message) => {
      const msgId = message.msg_id ?? message.msgId;
      // A tool message's `name` is the tool's (OpenAI's chat format), not who said it.
      const named = message.role === 'tool' ? [message.speaker] : [message.speaker, message.name, message.author];
      const speaker = named.find((name): name is string => typeof name === 'string' && name.trim() !== '');
      return {
        ...(msgId !== undefined ? { msgId } : {}),
        role: message.role,
        content: message.content,
        ...(speaker !== undefined ? { speaker: speaker.trim() } : {}),
        ...(message.timestamp != null ? { timestamp: message.timestamp } : {}),
      };
    }),
  };
}

/** The problem nearest the top (a missing session id before a bad message), and how many more there are. */
function describeIssues(issues: readonly z.core.$ZodIssue[], where: string): string {
  const ordered = [...issues].sort((a, b) => a.path.length - b.path.length);
  const first = ordered[0];
  if (first === undefined) return `${where || 'the document'} is not a valid session`;
  const path = first.path.reduce<string>((soFar, key) => at(soFar, typeof key === 'number' ? key : String(key)), where);
  const more = ordered.length > 1 ? ` (and ${ordered.length - 1} more problem${ordered.length > 2 ? 's' : ''})` : '';
  return `${path || 'the document'} ${first.message}${more}`;
}

function found(value: unknown): string {
  if (value === undefined) return '';
  if (value === null) return ' (found null)';
  if (typeof value === 'string') return ` (found ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  if (Array.isArray(value)) return ' (found an array)';
  return ` (found ${typeof value})`;
}
