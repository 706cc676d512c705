import type { ChildProcess } from 'node:child_process';

/** Collects the JSON lines a watcher prints, and lets a test wait for the next ones. */
export function follow(child: ChildProcess) {
  const lines: Array<Record<string, unknown>> = [];
  let buffer = '';
  const waiters: Array<() => void> = [];
  child.stdout!.on('data', (d: Buffer) => {
    buffer += d.toString();
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      waiters.splice(0).forEach((w) => w());
    }
  });
  const until = (count: number, timeoutMs = 60_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${count} reports; got ${JSON.stringify(lines)}`)), timeoutMs);
      const check = () => {
        if (lines.length >= count) {
          clearTimeout(timer);
          resolve();
        } else waiters.push(check);
      };
      check();
    });
  return { lines, until };
}
