import type { MessageInput } from '../../shared/domain.js';

/** The first line of the first thing the person said, as a title (at most 80 characters). */
export function titleFromMessages(messages: readonly MessageInput[]): string | undefined {
  const first = messages.find((message) => message.role === 'user')?.content.split('\n').find((line) => line.trim() !== '')?.trim();
  if (first === undefined) return undefined;
  return first.length > 80 ? `${first.slice(0, 79)}…` : first;
}
