/**
 * The one door into the handlers: checks that the channel exists and that the request matches its
 * schema before anything runs, and turns every failure into `{ code, message }`.
 */
import type { Channel, Result } from '../../shared/ipc.js';
import { requestSchemas } from '../../shared/ipc.js';
import { toErrorInfo, type Handlers } from './memoryHost.js';

export function isChannel(name: string): name is Channel {
  return Object.prototype.hasOwnProperty.call(requestSchemas, name);
}

export async function dispatch(handlers: Handlers, channel: string, request: unknown): Promise<Result<unknown>> {
  if (!isChannel(channel)) return { ok: false, error: { code: 'invalid_request', message: `unknown channel "${channel}"` } };
  const parsed = requestSchemas[channel].safeParse(request ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'request';
    return { ok: false, error: { code: 'invalid_request', message: `${channel}: ${where}: ${issue?.message ?? 'invalid'}` } };
  }
  try {
    const handler = handlers[channel] as (request: unknown) => Promise<unknown>;
    return { ok: true, value: await handler(parsed.data) };
  } catch (error) {
    return { ok: false, error: toErrorInfo(error) };
  }
}
