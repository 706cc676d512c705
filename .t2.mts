import { readTranscriptsWithLimits, DEFAULT_LIMITS } from './electron/importers/read.js';
async function all(limits) {
  const out = [];
  for await (const r of readTranscriptsWithLimits(['test/fixtures/import'], { include: ['tools', 'thinking'] }, limits)) {
    if ('error' in r) { out.push(r.error.message); continue; }
    const ss = []; for await (const s of r.sessions) ss.push(s);
    out.push({ file: r.file, format: r.format, n: r.sessionCount, ss });
  }
  return out;
}
const a = await all(DEFAULT_LIMITS); const b = await all({ ...DEFAULT_LIMITS, streamingThresholdBytes: 0 });
console.log(JSON.stringify(a) === JSON.stringify(b));
for (let i = 0; i < a.length; i++) if (JSON.stringify(a[i]) !== JSON.stringify(b[i])) console.log(JSON.stringify(a[i]).slice(0, 300), '\n  vs\n', JSON.stringify(b[i]).slice(0, 300));
