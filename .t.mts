import { readTranscripts } from './electron/importers/index.js';
const inc = process.argv[2] === 'all' ? { include: ['tools', 'thinking'] as Array<'tools'|'thinking'> } : {};
for await (const r of readTranscripts(['test/fixtures/import'], inc)) {
  if ('error' in r) { console.log('ERR', r.error.code, r.error.message); continue; }
  console.log('==', r.file, r.format, r.sessionCount);
  for await (const s of r.sessions) { console.log('  session', s.sessionId, JSON.stringify(s.title), s.source); for (const m of s.messages) console.log('    ', JSON.stringify(m)); }
}
