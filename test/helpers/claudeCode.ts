/** Transcripts as assistants write them, for the tests of sources. */

/** Claude Code's log lines of one session. */
export function claudeCodeLines(sessionId: string, topic: string, from: number, count: number): string {
  const lines: string[] = [];
  for (let i = from; i < from + count; i++) {
    const user = i % 2 === 0;
    const uuid = `${sessionId.slice(0, 8)}-${String(i).padStart(4, '0')}`;
    const parentUuid = i === 0 ? null : `${sessionId.slice(0, 8)}-${String(i - 1).padStart(4, '0')}`;
    const text = user ? `Question ${i} about ${topic}: what comes next?` : `Answer ${i} about ${topic}: step ${i} follows.`;
    const message = user ? { role: 'user', content: text } : { id: `msg_${i}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-20250514', content: [{ type: 'text', text }] };
    lines.push(JSON.stringify({ parentUuid, isSidechain: false, userType: 'external', cwd: '/work', sessionId, version: '1.0.98', type: user ? 'user' : 'assistant', message, uuid, timestamp: new Date(Date.UTC(2026, 10, 30, 9, 0, i)).toISOString() }));
  }
  return `${lines.join('\n')}\n`;
}
