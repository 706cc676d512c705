import type { MessageInput } from '../../shared/domain.js';

/**
 * The first line of the first thing the person said, as a title (at most 80 characters). A line without
 * a letter or digit (a rule `────` heading a pasted log) is passed over when a line with words follows.
 */
export function titleFromMessages(messages: readonly MessageInput[]): string | undefined {
  const lines = messages.find((message) => message.role === 'user')?.content.split('\n').map((line) => line.trim()).filter((line) => line !== '') ?? [];
  const first = lines.find((line) => /[\p{L}\p{N}]/u.test(line)) ?? lines[0];
  if (first === undefined) return undefined;
  return first.length > 80 ? `${first.slice(0, 79)}…` : first;
}
