/**
 * End to end, as a person would: the real UI in Chromium against `npm run web` with a real store and
 * the real offline model. Drop a transcript, check the preview, import, see the statistics, drop it
 * again (all skipped), force an overwrite, inspect a chunk, search. Console and page errors fail the
 * test; screenshots are kept in test-results/e2e/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright';
import { REPO, cliEnv } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = path.join(REPO, 'test-results', 'e2e');
// CI installs Chromium (.ci/run); elsewhere the suite says why it did not run these.
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium for these tests`);

function transcript(count: number, edited = false) {
  return {
    session_id: 'sourdough',
    title: 'Sourdough planning',
    messages: Array.from({ length: count }, (_, i) => ({
      msg_id: `s${i}`,
      role: i % 2 ? 'assistant' : 'user',
      content: i % 2 ? `Feed the sourdough starter with equal parts flour and water, step ${i}${edited && i === 3 ? ', and keep it warm' : ''}.` : `How often should I feed my sourdough starter, question ${i}?`,
    })),
  };
}

/** Drops a file on the window the way a person's drag and drop does. */
async function dropFile(page: Page, name: string, content: unknown): Promise<void> {
  const dataTransfer = await page.evaluateHandle(
    ([fileName, text]) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([text], fileName, { type: 'application/json' }));
      return transfer;
    },
    [name, JSON.stringify(content)] as const,
  );
  await page.dispatchEvent('body', 'dragenter', { dataTransfer });
  await page.dispatchEvent('body', 'dragover', { dataTransfer });
  await page.dispatchEvent('body', 'drop', { dataTransfer });
}

describe.skipIf(!haveChromium)('web mode in Chromium (needs Debian\'s chromium at /usr/bin/chromium)', () => {
  let server: ChildProcess;
  let url: string;
  let context: BrowserContext;
  let page: Page;
  let dataDir: string;
  const problems: string[] = [];
  const cleanups: Array<() => void> = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    execFileSync(process.execPath, [path.join(REPO, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '-c', 'vite.renderer.config.ts', '--logLevel', 'error'], { cwd: REPO, stdio: 'inherit' });
    const data = tempDir('sm-e2e-');
    const profile = tempDir('sm-e2e-profile-');
    // A home folder where one assistant (Codex CLI) has left its sessions, for the Sources view.
    const home = tempDir('sm-e2e-home-');
    cpSync(path.join(REPO, 'test', 'fixtures', 'import', 'codex', 'home'), path.join(home.dir, '.codex'), { recursive: true });
    cleanups.push(data.cleanup, profile.cleanup, home.cleanup);
    dataDir = data.dir;
    const env = cliEnv({ HOME: home.dir, USERPROFILE: home.dir });
    for (const variable of ['CODEX_HOME', 'CLAUDE_CONFIG_DIR', 'OPENCLAW_STATE_DIR', 'GEMINI_CLI_HOME', 'CONTINUE_GLOBAL_DIR', 'XDG_DATA_HOME', 'XDG_CONFIG_HOME', 'OPENCODE_DB', 'AIDER_CHAT_HISTORY_FILE']) delete env[variable];
    server = spawn(process.execPath, [path.join(REPO, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'electron/host/webMain.ts', '--data', data.dir, '--model', 'use-lite-en'], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n')[0];
        if (out.includes('\n') && line) resolve(line.trim());
      });
      server.on('exit', (code) => reject(new Error(`web mode exited (${code})`)));
    });
    context = await chromium.launchPersistentContext(profile.dir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1320, height: 860 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  });

  afterAll(async () => {
    await context?.close();
    server?.kill('SIGTERM');
    cleanups.forEach((c) => c());
  });

  it('prints its URL with a token first, and refuses requests without it', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
    const origin = new URL(url).origin;
    expect((await fetch(`${origin}/api/sessions:list`, { method: 'POST', body: '{}' })).status).toBe(401);
  });

  it('drop, preview, import, statistics, drop again, overwrite, inspect, search', async () => {
    await page.goto(url);
    await expect.poll(() => page.getByRole('heading', { name: 'No memories yet' }).isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, '01-empty.png') });

    // Drop a transcript: the preview says what it would add.
    await dropFile(page, 'sourdough.json', transcript(12));
    await page.getByText(/1 session selected: 12 new, 0 updated, 0 skipped messages/).waitFor({ timeout: 60_000 });
    await page.screenshot({ path: path.join(SHOTS, '02-preview.png') });
    await page.getByRole('button', { name: 'Import 1 session' }).click();
    await page.getByRole('heading', { name: 'Import finished' }).waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByText(/1 session saved: 12 new, 0 updated, 0 skipped, 0 deleted messages/).isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, '03-imported.png') });

    // The same file again: everything skipped.
    await page.getByRole('button', { name: 'Import more files' }).click();
    await dropFile(page, 'sourdough.json', transcript(12));
    await page.getByText('Everything selected is already archived: importing would skip it all.').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Import 1 session' }).click();
    await page.getByText(/1 session saved: 0 new, 0 updated, 12 skipped, 0 deleted messages/).waitFor({ timeout: 60_000 });

    // The session, with its statistics.
    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('link', { name: /Sourdough planning/ }).first().click();
    await page.getByRole('heading', { name: 'Save history' }).waitFor();
    const historyRows = page.getByRole('table', { name: 'Save history, one row per save' }).getByRole('row');
    await expect.poll(() => historyRows.count()).toBe(3); // header + two saves
    await page.screenshot({ path: path.join(SHOTS, '04-session.png'), fullPage: true });

    // A forced overwrite, confirmed on purpose.
    await page.getByRole('button', { name: 'Overwrite from file…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dropFile(page, 'sourdough-v2.json', transcript(8, true));
    await dialog.getByText(/Overwriting deletes all archived messages of this session \(12\)/).waitFor({ timeout: 60_000 });
    await page.screenshot({ path: path.join(SHOTS, '05-overwrite-confirm.png') });
    await dialog.getByRole('button', { name: 'Overwrite session' }).click();
    await dialog.getByText('The session was overwritten.').waitFor({ timeout: 60_000 });
    await page.screenshot({ path: path.join(SHOTS, '05b-overwritten.png') });
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => historyRows.count(), { timeout: 20_000 }).toBe(4);

    // Inspect a chunk: its text, its embedding, its neighbours.
    await page.getByRole('tab', { name: /Chunks/ }).click();
    await page.getByRole('link', { name: /^Inspect chunk/ }).first().click();
    await page.getByRole('heading', { name: 'Most similar chunks elsewhere' }).waitFor();
    await expect.poll(() => page.getByRole('img', { name: /Embedding with 512 dimensions/ }).isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, '06-chunk.png'), fullPage: true });

    // Search across memory, with the matching words highlighted.
    await page.getByRole('link', { name: 'Search' }).click();
    await page.getByRole('searchbox', { name: 'Search all memory' }).fill('sourdough starter');
    await page.keyboard.press('Enter');
    await page.getByText(/results? for “sourdough starter”/).waitFor({ timeout: 30_000 });
    expect(await page.locator('mark').first().textContent()).toMatch(/sourdough|starter/i);
    await page.screenshot({ path: path.join(SHOTS, '07-search.png') });

    // What the store holds agrees with what the UI showed.
    const origin = new URL(url).origin;
    const token = new URL(url).searchParams.get('token')!;
    const detail = (await (await fetch(`${origin}/api/sessions:show`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ sessionId: 'sourdough' }) })).json()) as { value: { messages: unknown[] } };
    expect(detail.value.messages).toHaveLength(8);
    expect(problems).toEqual([]);
    expect(readFileSync(path.join(SHOTS, '04-session.png')).length).toBeGreaterThan(10_000);
  });

  it('an import that copies another session\'s passages links to the duplicates, which can be dismissed', async () => {
    // The archived sourdough answers pasted into another conversation (other ids, another opening).
    const archived = transcript(8, true).messages;
    const pasted = {
      session_id: 'baking-notes',
      title: 'Baking notes',
      messages: [{ msg_id: 'b0', role: 'user', content: 'Here are my notes on the starter, keep them with the bread plans.' }, ...archived.slice(2).map((m, i) => ({ ...m, msg_id: `b${i + 1}` }))],
    };
    await page.getByRole('link', { name: 'Import' }).click();
    const more = page.getByRole('button', { name: 'Import more files' });
    if (await more.isVisible()) await more.click();
    await dropFile(page, 'baking-notes.json', pasted);
    await page.getByRole('button', { name: 'Import 1 session' }).click();
    await page.getByRole('heading', { name: 'Import finished' }).waitFor({ timeout: 60_000 });
    await page.getByText(/^Already kept by other sessions: \d+ chunks? from this import\./).waitFor();
    await page.getByRole('link', { name: 'Review duplicates' }).click();
    const clusters = page.getByRole('list', { name: 'Duplicate clusters' }).locator(':scope > li');
    await expect.poll(() => clusters.count(), { timeout: 30_000 }).toBeGreaterThan(0);
    const before = await clusters.count();
    await expect.poll(() => clusters.first().getByRole('link', { name: 'Baking notes' }).isVisible()).toBe(true);
    await expect.poll(() => clusters.first().getByRole('link', { name: 'Sourdough planning' }).isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, '08-duplicates.png'), fullPage: true });
    await clusters.first().getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => clusters.count(), { timeout: 20_000 }).toBe(before - 1);
    await page.getByText(/1 dismissed/).waitFor();
    expect(problems).toEqual([]);
  });

  it('the Sources view finds an assistant on this computer and, once turned on, saves its sessions', async () => {
    await page.getByRole('link', { name: 'Sources' }).click();
    const codex = page.getByRole('listitem', { name: 'Codex CLI' });
    await codex.waitFor({ timeout: 30_000 });
    await codex.getByText(/^[1-9]\d* conversation files? found/).waitFor();
    const toggle = codex.getByRole('checkbox', { name: "Save Codex CLI's conversations" });
    expect(await toggle.isChecked()).toBe(false);
    // The box follows the app's answer (the setting is stored first), so it is clicked, then awaited.
    await toggle.click();
    await expect.poll(() => toggle.isChecked(), { timeout: 30_000 }).toBe(true);
    await codex.getByText(/the last sync with something new saved [1-9]\d* sessions?/).waitFor({ timeout: 90_000 });
    await page.screenshot({ path: path.join(SHOTS, '09-sources.png'), fullPage: true });
    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.getByText(/Ferry to Naxos/).first().waitFor({ timeout: 30_000 });
    expect(problems).toEqual([]);
  });

  it('Settings › Storage shows the folder the memory is in and this computer among the machines that saved', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    const card = page.locator('section', { has: page.getByRole('heading', { name: 'Storage', exact: true }) });
    await card.waitFor();
    await expect.poll(() => card.getByRole('definition').first().textContent()).toBe(dataDir);
    expect(await card.getByRole('definition').nth(1).textContent()).toBe('A folder on this computer');
    const writers = card.getByRole('list', { name: 'Machines that saved in the last 30 days' }).getByRole('listitem');
    await expect.poll(() => writers.count(), { timeout: 20_000 }).toBe(1);
    expect(await writers.first().textContent()).toMatch(/this computerlast saved .+ · [1-9]\d* saves?$/);
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: path.join(SHOTS, '10-storage.png') });
    // A mistyped store URI is answered in the card, and the app stays where it is.
    await card.getByRole('textbox', { name: 'Move to another folder or store' }).fill('s3+ddb://team-bucket/memory');
    await card.getByRole('button', { name: 'Move here' }).click();
    await card.getByRole('alert').getByText(/an s3\+ddb:\/\/ store needs exactly one query parameter, ddbTableName/).waitFor();
    const origin = new URL(url).origin;
    const token = new URL(url).searchParams.get('token')!;
    const settings = (await (await fetch(`${origin}/api/settings:get`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' })).json()) as { value: { dataDir: string } };
    expect(settings.value.dataDir).toBe(dataDir);
    expect(problems).toEqual([]);
  });
});
