// Plays OpenClaw writing to its agent database: appends turns (a user and an assistant event, one
// transaction each) to a session, in WAL mode, with no busy timeout, so that any lock a reader held
// against it would fail a write here. Usage: node openclaw-writer.mjs <database> <sessionId> <turns>
// Prints "open" once its connection is in WAL mode (as OpenClaw's is while it runs), then one line
// per committed turn ("turn <n> <ms the commit took>"), then "done".
import Database from 'better-sqlite3';

const [, , file, sessionId, turnsArg] = process.argv;
const turns = Number(turnsArg);
const db = new Database(file, { timeout: 0 });
db.pragma('journal_mode = WAL');
process.stdout.write('open\n');
const last = db.prepare('SELECT seq, event_json FROM transcript_events WHERE session_id = ? ORDER BY seq DESC LIMIT 1').get(sessionId);
let seq = last.seq;
let parentId = JSON.parse(last.event_json).id;
const insert = db.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?, ?, ?, ?, ?)');
const appendTurn = db.transaction((turn) => {
  for (const role of ['user', 'assistant']) {
    const id = `w${String(turn).padStart(5, '0')}${role === 'user' ? 'u' : 'a'}`;
    const at = Date.UTC(2026, 1, 5) + turn * 1000 + (role === 'user' ? 0 : 500);
    const content = role === 'user' ? `Question ${turn}: what about day ${turn % 7}?` : [{ type: 'text', text: `Answer ${turn}: keep day ${turn % 7} flexible.` }];
    const eventJson = JSON.stringify({ type: 'message', id, parentId, timestamp: new Date(at).toISOString(), message: { role, content, timestamp: at } });
    seq += 1;
    insert.run(sessionId, seq, eventJson, at, Buffer.byteLength(eventJson));
    parentId = id;
  }
});
for (let turn = 1; turn <= turns; turn++) {
  const started = performance.now();
  appendTurn(turn);
  process.stdout.write(`turn ${turn} ${(performance.now() - started).toFixed(1)}\n`);
  await new Promise((resolve) => setTimeout(resolve, 2));
}
db.close();
process.stdout.write('done\n');
