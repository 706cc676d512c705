/**
 * Redaction in the store: secrets never reach a file under the data directory when a transcript is
 * saved, re-saves stay stable, and `redact` cleans a store saved without redaction, leaving no
 * unredacted copy on disk.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInput } from '../shared/domain.js';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';
import { conversation, openEngine, tempDir } from './helpers/engine.js';
import { filesContaining } from './helpers/files.js';
import { seededChars } from './helpers/random.js';

// The subject is what reaches the files, not embedding: the engines and the CLI runs embed with the
// hashing stand-in, and load no model (saving and search with the real one: test/engine.test.ts, test/cli.test.ts).
let embedder: HashEmbedder;
beforeAll(async () => {
  embedder = new HashEmbedder();
});
afterAll(async () => {
  await embedder.close();
});

// Generated in each provider's format from a fixed seed, so that no real key is in this file.
const random = seededChars(7);
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SECRETS = {
  github: 'ghp_' + random(ALNUM, 36),
  aws: 'AKIA' + random('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16),
  openai: 'sk-proj-' + random(ALNUM + '-_', 100),
  bearer: random(ALNUM, 48),
  dbPassword: 'Pg' + random(ALNUM, 14) + '!9',
};

/** An agent session whose tool output and pasted config carry secrets; some messages have no id. */
function leakySession(withIds = true): SessionInput {
  const id = (s: string) => (withIds ? { msgId: s } : {});
  return {
    sessionId: 'agent-run',
    title: 'Deploy the API',
    messages: [
      { ...id('u1'), role: 'user', content: `Deploy it. My GitHub token is ${SECRETS.github} and the AWS key id ${SECRETS.aws}.` },
      { ...id('a1'), role: 'assistant', content: 'I will push the branch and run the deploy script.' },
      { ...id('t1'), role: 'tool', content: `$ curl -H "Authorization: Bearer ${SECRETS.bearer}" https://api.internal/v1/deploy\n{"status":"ok"}` },
      { ...id('u2'), role: 'user', content: `The database is postgres://app:${SECRETS.dbPassword}@db.internal:5432/prod and OPENAI_API_KEY=${SECRETS.openai}` },
      { ...id('a2'), role: 'assistant', content: 'The deploy finished; the health check on the garden tomatoes service is green.' },
      { ...id('u3'), role: 'user', content: 'Thanks, what should we monitor next week?' },
    ],
  };
}

function expectNoSecretIn(dir: string) {
  for (const [name, secret] of Object.entries(SECRETS)) expect(filesContaining(dir, secret), name).toEqual([]);
}

describe('redaction before storage', () => {
  it('no secret reaches a file; the text says what was there; a re-save is recognised as archived', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const engine = await openEngine(dir, embedder);
      const report = await engine.save(leakySession());
      expect(report.redacted).toBe(5);
      expect(report.new).toBe(6);
      expectNoSecretIn(dir);
      const detail = await engine.showSession('agent-run');
      expect(detail.messages[0]!.content).toBe('Deploy it. My GitHub token is [REDACTED:github-token] and the AWS key id [REDACTED:aws-access-key].');
      expect(detail.messages[3]!.content).toBe('The database is postgres://app:[REDACTED:url-password]@db.internal:5432/prod and OPENAI_API_KEY=[REDACTED:openai-key]');
      expect((await engine.history('agent-run')).at(-1)).toMatchObject({ redacted: 5 });
      // The hash is of the redacted text: the same transcript again is archived already.
      expect((await engine.save(leakySession())).skippedSession).toBe(true);
      const idless = await engine.save({ ...leakySession(false), sessionId: 'agent-run-2' });
      expect((await engine.save({ ...leakySession(false), sessionId: 'agent-run-2' })).skippedSession).toBe(true);
      expect(idless.redacted).toBe(5);
      await engine.close();
    } finally {
      cleanup();
    }
  });

  it('redact: false stores the text as it is', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const engine = await openEngine(dir, embedder);
      const report = await engine.save(leakySession(), { redact: false });
      expect(report.redacted).toBe(0);
      expect((await engine.showSession('agent-run')).messages[0]!.content).toContain(SECRETS.github);
      await engine.close();
    } finally {
      cleanup();
    }
  });
});

describe('redact: a store saved without redaction', () => {
  it('a dry run reports and writes nothing; a run leaves no copy of any secret and keeps the rest whole', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const engine = await openEngine(dir, embedder);
      await engine.save(leakySession(), { redact: false });
      await engine.save({ ...leakySession(false), sessionId: 'idless' }, { redact: false });
      await engine.save(conversation(30, { sessionId: 'clean' }));
      // A second save, so that the secrets also sit in older versions.
      await engine.save(conversation(36, { sessionId: 'clean' }));
      expect(filesContaining(dir, SECRETS.github).length).toBeGreaterThan(0);
      const cleanBefore = await engine.showSession('clean');

      const dry = await engine.redact({ dryRun: true });
      expect(dry).toMatchObject({ dryRun: true, sessionsScanned: 3, messagesScanned: 48 });
      expect(dry.sessions.map((s) => [s.sessionId, s.messages, s.secrets])).toEqual([
        ['agent-run', 3, 5],
        ['idless', 3, 5],
      ]);
      expect(dry.sessions[0]!.kinds).toEqual({ 'github-token': 1, 'aws-access-key': 1, 'bearer-token': 1, 'url-password': 1, 'openai-key': 1 });
      expect(filesContaining(dir, SECRETS.github).length).toBeGreaterThan(0);

      const done = await engine.redact();
      expect(done.sessions.map((s) => s.secrets)).toEqual([5, 5]);
      expect(done.sessions.every((s) => s.chunksRewritten > 0)).toBe(true);
      expectNoSecretIn(dir);
      expect((await engine.showSession('agent-run')).messages.map((m) => m.msgId)).toEqual(['u1', 'a1', 't1', 'u2', 'a2', 'u3']);
      expect((await engine.showSession('agent-run')).messages[2]!.content).toContain('Authorization: Bearer [REDACTED:bearer-token]');
      expect(await engine.showSession('clean')).toEqual(cleanBefore);
      expect((await engine.verify()).problems).toEqual([]);
      // Nothing left to do; and importing the original transcripts again adds nothing.
      expect((await engine.redact()).sessions).toEqual([]);
      expect((await engine.save(leakySession())).skippedSession).toBe(true);
      const again = await engine.save({ ...leakySession(false), sessionId: 'idless' });
      expect(again.skippedSession).toBe(true);
      expect((await engine.showSession('idless')).messages).toHaveLength(6);
      await engine.close();
    } finally {
      cleanup();
    }
  });
});

describe('session-memory save --no-redact, redact', () => {
  it('reports per session and in total, and cleans the files', async () => {
    const { HASH_EMBEDDER, runCli, jsonLines } = await import('./helpers/cli.js');
    const { dir, cleanup } = tempDir();
    try {
      const data = path.join(dir, 'data');
      const file = path.join(dir, 'agent.json');
      const s = leakySession();
      writeFileSync(file, JSON.stringify({ session_id: s.sessionId, title: s.title, messages: s.messages.map((m) => ({ msg_id: m.msgId, role: m.role, content: m.content })) }));
      const saved = await runCli(['--data', data, 'save', file, '--no-redact', '--json'], HASH_EMBEDDER);
      expect(saved.status).toBe(0);
      expect(jsonLines(saved.stdout)[0]).toMatchObject({ new: 6, redacted: 0 });

      const dry = await runCli(['--data', data, 'redact', '--dry-run', '--json'], HASH_EMBEDDER);
      expect(dry.status).toBe(0);
      expect(jsonLines(dry.stdout)).toEqual([
        { sessionId: 'agent-run', messages: 3, secrets: 5, kinds: expect.any(Object), chunksRewritten: 0, embeddingsComputed: 0 },
        { sessionsScanned: 1, messagesScanned: 6, sessionsRedacted: 1, secrets: 5, dryRun: true },
      ]);
      expect(filesContaining(data, SECRETS.openai).length).toBeGreaterThan(0);

      const run = await runCli(['--data', data, 'redact'], HASH_EMBEDDER);
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/6 messages in 1 sessions scanned: redacted 5 secrets in 1 session/);
      expectNoSecretIn(data);

      // A later save with redaction on (the default) finds the transcript archived.
      const resave = await runCli(['--data', data, 'save', file, '--json'], HASH_EMBEDDER);
      expect(jsonLines(resave.stdout)[0]).toMatchObject({ skippedSession: true, redacted: 5 });
    } finally {
      cleanup();
    }
  });
});
