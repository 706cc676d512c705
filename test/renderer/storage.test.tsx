// @vitest-environment jsdom
/**
 * Settings › Storage over the demo host: where the memory is and whether it is shared, the machines
 * that saved lately, and moving to another folder or store (a mistyped URI answered before anything
 * is sent, the host's refusals shown in one line, the copy asked for when ticked).
 */
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { InMemoryHost } from '../../renderer/src/demo/inMemoryApi.js';
import { createMockMemory, GARDEN, MEMORY_ZH, TRIP } from './mockApi.js';
import { renderApp } from './render.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();
const SHARED = 's3+ddb://team-bucket/memory?ddbTableName=session-memory-commits';

async function storageCard(): Promise<HTMLElement> {
  return (await screen.findByRole('heading', { name: 'Storage' })).closest('section') as HTMLElement;
}

/** A memory that this computer and a desktop saved to lately, and a machine that saved long ago. */
function seedWriters(host: InMemoryHost): void {
  host.save(TRIP, { at: ago(40 * DAY), machine: 'old-nas' });
  host.save(GARDEN, { at: ago(3 * DAY), machine: 'desk-b' });
  host.save({ sessionId: 'desk-notes', title: 'Desk notes', messages: [{ msgId: 'd1', role: 'user', content: 'Order a second monitor arm.' }] }, { at: ago(2 * HOUR), machine: 'desk-b' });
  host.save(MEMORY_ZH, { at: ago(5 * HOUR) });
}

function move(card: HTMLElement, to: string, options: { copy?: boolean } = {}): void {
  fireEvent.change(within(card).getByRole('textbox', { name: 'Move to another folder or store' }), { target: { value: to } });
  if (options.copy) fireEvent.click(within(card).getByRole('checkbox', { name: /Copy the current memory there/ }));
  fireEvent.click(within(card).getByRole('button', { name: 'Move here' }));
}

describe('settings: storage', () => {
  it('shows the folder the memory is in, not shared, and the machines that saved in the last 30 days, newest first', async () => {
    const mock = createMockMemory({ sample: false, host: { now: () => new Date(), settings: { dataDir: '/Users/ana/memory' } } });
    seedWriters(mock.host);
    renderApp(mock, '#/settings');
    const card = await storageCard();
    const facts = within(card).getAllByRole('definition').map((dd) => dd.textContent);
    expect(facts).toEqual(['/Users/ana/memory', 'A folder on this computer', 'No: only this computer uses this folder']);

    const list = await within(card).findByRole('list', { name: 'Machines that saved in the last 30 days' });
    const rows = within(list).getAllByRole('listitem').map((item) => item.textContent);
    expect(rows).toEqual(['desk-blast saved 2 hours ago · 2 saves', 'demo-laptopthis computerlast saved 5 hours ago · 1 save']);
    expect(mock.requestsOn('store:writers')).toEqual([{ days: 30 }]);
  });

  it('says plainly when the store\'s provider keeps deleted objects, and so forgotten text, with the provider\'s detail', async () => {
    const message = 'Versioning is on for s3://team-bucket: forgotten text stays in the bucket\'s noncurrent versions for 30 days (a lifecycle rule expires them).';
    const mock = createMockMemory({ sample: false, host: { now: () => new Date(), settings: { dataDir: SHARED }, retention: { state: 'on', days: 30, message } } });
    renderApp(mock, '#/settings');
    const card = await storageCard();
    const terms = within(card).getAllByRole('term').map((dt) => dt.textContent);
    const facts = within(card).getAllByRole('definition').map((dd) => dd.textContent);
    expect(terms.at(-1)).toBe('Deleted objects');
    expect(facts.at(-1)).toBe(`Kept by the provider: forgotten text stays in its kept versions${message}`);
  });

  it('a store on object storage is shown without its query, as shared, with this computer\'s folder for it', async () => {
    const mock = createMockMemory({ sample: false, host: { now: () => new Date(), settings: { dataDir: SHARED } } });
    renderApp(mock, '#/settings');
    const card = await storageCard();
    expect(within(card).getAllByRole('definition').map((dd) => dd.textContent)).toEqual([
      's3+ddb://team-bucket/memory',
      'S3 with a DynamoDB commit table',
      'Yes: every machine pointed at this store saves to it and searches it',
      '/home/demo/.session-memory/stores/team-bucket-memory',
    ]);
    expect(card.textContent).not.toContain('ddbTableName=session-memory-commits');
    expect(await within(card).findByText('No saves in this period.')).toBeTruthy();
  });

  it('a mistyped store URI is answered with the parser\'s line before anything is sent; a good one moves the app there', async () => {
    const mock = createMockMemory({ host: { settings: { dataDir: '/Users/ana/memory' } } });
    renderApp(mock, '#/settings');
    const card = await storageCard();
    move(card, 's3+ddb://team-bucket/memory');
    const refusal = await within(card).findByRole('alert');
    expect(refusal.textContent).toBe('Invalid input s3+ddb://team-bucket/memory: an s3+ddb:// store needs exactly one query parameter, ddbTableName (the DynamoDB commit table), e.g. s3+ddb://bucket/memory?ddbTableName=session-memory-commits');
    // Credentials pasted into a URI are refused, and not repeated.
    move(card, 's3://AKIAEXAMPLE:wJalrXUtnFEMI@team-bucket/memory');
    expect((await within(card).findByRole('alert')).textContent).toMatch(/^Invalid input s3:\/\/team-bucket\/memory: credentials do not go in the URI/);
    expect(card.textContent).not.toContain('wJalrXUtnFEMI');
    expect(mock.requestsOn('store:change')).toEqual([]);

    move(card, ` ${SHARED} `);
    expect(await within(card).findByText('The app now uses the memory at s3+ddb://team-bucket/memory.')).toBeTruthy();
    expect(mock.requestsOn('store:change')).toEqual([{ to: SHARED }]);
    expect(within(card).getAllByRole('definition')[0]!.textContent).toBe('s3+ddb://team-bucket/memory');
    expect(mock.host.settings.dataDir).toBe(SHARED);
  });

  it('a store the host refuses as unsafe is shown as its one line, and the app stays where it was', async () => {
    const mock = createMockMemory({ host: { settings: { dataDir: '/Users/ana/memory' } } });
    const line = 's3://plain-bucket/memory: this store\'s server ignores conditional writes, so two machines saving at once could lose each other\'s saves; use s3+ddb://plain-bucket/memory?ddbTableName=T (a DynamoDB commit table), or --single-writer if only this machine writes';
    mock.failNext('store:change', 'unsafe_store', line);
    renderApp(mock, '#/settings');
    const card = await storageCard();
    move(card, 's3://plain-bucket/memory');
    const shown = await within(card).findByText(line, { exact: false });
    expect(shown.closest('p')!.textContent).toBe(`Store unsafe for several writers ${line}`);
    expect(within(card).getAllByRole('definition')[0]!.textContent).toBe('/Users/ana/memory');
    expect(mock.host.settings.dataDir).toBe('/Users/ana/memory');
  });

  it('asks the host to copy the current memory when the box is ticked, then shows the new place', async () => {
    const mock = createMockMemory({ host: { settings: { dataDir: '/Users/ana/memory' } } });
    renderApp(mock, '#/settings');
    const card = await storageCard();
    expect(within(card).getByText(/Everything at \/Users\/ana\/memory is copied first/)).toBeTruthy();
    move(card, SHARED, { copy: true });
    await waitFor(() => expect(mock.host.settings.dataDir).toBe(SHARED));
    expect(mock.requestsOn('store:change')).toEqual([{ to: SHARED, copy: true }]);
  });

  it('speaks Chinese when the app does', async () => {
    const mock = createMockMemory({ sample: false, host: { now: () => new Date(), settings: { dataDir: SHARED, language: 'zh-CN' } } });
    seedWriters(mock.host);
    renderApp(mock, '#/settings');
    const card = (await screen.findByRole('heading', { name: '存储' })).closest('section') as HTMLElement;
    expect(within(card).getByText('是：指向此存储的每台机器都向它保存、在其中搜索')).toBeTruthy();
    expect(await within(card).findByRole('list', { name: '最近 30 天内保存过的机器' })).toBeTruthy();
    expect(within(card).getByRole('button', { name: '移到这里' })).toBeTruthy();
  });
});
