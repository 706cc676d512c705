// @vitest-environment jsdom
import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { dictionaries, languageFromPreferences, translate } from '../../renderer/src/i18n.js';
import { createMockMemory } from './mockApi.js';
import { renderApp } from './render.js';

describe('languages', () => {
  it('switches the whole UI to Chinese from the settings, and saves the choice', async () => {
    const mock = createMockMemory();
    renderApp(mock, '#/settings');
    fireEvent.change(await screen.findByRole('combobox', { name: 'Language' }), { target: { value: 'zh-CN' } });
    expect(await screen.findByRole('heading', { level: 1, name: '设置' })).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: '主导航' });
    expect(within(nav).getAllByRole('link').map((link) => link.textContent)).toEqual(['会话', '搜索', '导入', '来源', '重复内容', '设置']);
    expect(document.documentElement.lang).toBe('zh-CN');
    expect(mock.requestsOn('settings:set')).toContainEqual({ language: 'zh-CN' });
    expect(mock.host.settings.language).toBe('zh-CN');

    fireEvent.click(within(nav).getByRole('link', { name: '会话' }));
    expect(await screen.findByRole('table', { name: '已归档的会话' })).toBeTruthy();
    expect(screen.getByRole('columnheader', { name: '最近保存' })).toBeTruthy();
  });

  it('switches with the sidebar buttons too', async () => {
    renderApp(createMockMemory(), '#/sessions');
    fireEvent.click(await screen.findByRole('button', { name: '简体中文' }));
    expect(await screen.findByRole('heading', { level: 1, name: '会话' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'English' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Sessions' })).toBeTruthy();
  });

  it('starts in the language the host remembered', async () => {
    const mock = createMockMemory({ host: { settings: { language: 'zh-CN' } } });
    renderApp(mock, '#/import');
    expect(await screen.findByRole('heading', { level: 1, name: '导入' })).toBeTruthy();
  });

  it('has every string in both languages, with the same placeholders', () => {
    const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)(?::[^}]*)?\}/g)].map((match) => match[1] ?? '').sort();
    for (const [key, english] of Object.entries(dictionaries.en)) {
      const chinese = dictionaries['zh-CN'][key as keyof typeof dictionaries.en];
      expect(chinese, key).toBeTruthy();
      expect(placeholders(chinese), key).toEqual(placeholders(english));
    }
  });

  it('picks Chinese for any zh preference and fills placeholders', () => {
    expect(languageFromPreferences(['zh-TW', 'en'])).toBe('zh-CN');
    expect(languageFromPreferences(['fr-FR', 'en-GB'])).toBe('en');
    expect(languageFromPreferences(['fr-FR'])).toBe('en');
    expect(translate('zh-CN', 'search.results', { n: 3, query: '记忆' })).toBe('“记忆”的 3 条结果');
    expect(translate('en', 'search.results', { n: 1, query: 'x' })).toBe('1 result for “x”');
    expect(translate('en', 'search.results', { n: 1200, query: 'x' })).toBe('1,200 results for “x”');
  });
});
