/**
 * The UI's languages: English and Simplified Chinese (locales/). The Chinese dictionary is typed by the English
 * one, so a key missing from either does not compile. `{name}` placeholders are filled by `t(key, { name })`;
 * `{name:one|other}` writes the number followed by the word for one or for more (English needs it, Chinese not).
 */
import { createContext, createElement, useContext, useMemo, type ReactNode } from 'react';
import type { ErrorCode } from '../../shared/errors.js';
import { en, type Dictionary, type MessageKey } from './locales/en.js';
import { zhCN } from './locales/zh-CN.js';

export type Language = 'en' | 'zh-CN';
export const LANGUAGES: readonly Language[] = ['en', 'zh-CN'];

export type { Dictionary, MessageKey };

export const dictionaries: Record<Language, Dictionary> = { en, 'zh-CN': zhCN };

/** The names of the languages, each in itself (a language menu reads the same in every language). */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', 'zh-CN': '简体中文' };

export type TranslateParams = Record<string, string | number>;
export type Translate = (key: MessageKey, params?: TranslateParams) => string;

export function translate(language: Language, key: MessageKey, params?: TranslateParams): string {
  const template = dictionaries[language][key];
  if (!params) return template;
  return template.replace(/\{(\w+)(?::([^|}]*)\|([^}]*))?\}/g, (whole, name: string, one?: string, other?: string) => {
    const value = params[name];
    if (value === undefined) return whole;
    const text = typeof value === 'number' ? value.toLocaleString(language) : value;
    if (one === undefined || other === undefined) return text;
    return `${text} ${Number(value) === 1 ? one : other}`;
  });
}

export function errorTitle(t: Translate, code: ErrorCode): string {
  return t(`error.${code}` as MessageKey);
}

/** Chinese for any `zh*` preference (Simplified is the dictionary we have), English otherwise. */
export function languageFromPreferences(preferred: readonly string[]): Language {
  for (const tag of preferred) {
    const lower = tag.toLowerCase();
    if (lower.startsWith('zh')) return 'zh-CN';
    if (lower.startsWith('en')) return 'en';
  }
  return 'en';
}

export function systemLanguage(): Language {
  if (typeof navigator === 'undefined') return 'en';
  return languageFromPreferences(navigator.languages?.length ? navigator.languages : [navigator.language]);
}

interface I18nValue {
  language: Language;
  t: Translate;
}

const I18nContext = createContext<I18nValue>({ language: 'en', t: (key, params) => translate('en', key, params) });

export function I18nProvider({ language, children }: { language: Language; children?: ReactNode }): ReactNode {
  const value = useMemo<I18nValue>(() => ({ language, t: (key, params) => translate(language, key, params) }), [language]);
  return createElement(I18nContext.Provider, { value }, children);
}

/** The translate function of the current language. */
export function useT(): Translate {
  return useContext(I18nContext).t;
}

export function useLanguage(): Language {
  return useContext(I18nContext).language;
}
