/** Numbers, dates, sizes and names as people read them, in the UI's language. */
import { useMemo } from 'react';
import { useLanguage, useT, type Language, type Translate } from './i18n.js';

/** Display names of the importers' `source` values (product names, the same in every language). */
export const SOURCE_NAMES: Readonly<Record<string, string>> = {
  chatgpt: 'ChatGPT',
  claude: 'Claude',
  openclaw: 'OpenClaw',
  'open-webui': 'Open WebUI',
  sillytavern: 'SillyTavern',
  'claude-code': 'Claude Code',
  json: 'JSON',
  markdown: 'Markdown',
  grok: 'Grok',
  librechat: 'LibreChat',
  'ai-studio': 'AI Studio',
  gemini: 'Gemini',
  codex: 'Codex CLI',
  'gemini-cli': 'Gemini CLI',
  'qwen-code': 'Qwen Code',
  'copilot-cli': 'GitHub Copilot CLI',
  antigravity: 'Antigravity',
  continue: 'Continue',
  cline: 'Cline',
  'roo-code': 'Roo Code',
  'kilo-code': 'Kilo Code',
  aider: 'aider',
  opencode: 'opencode',
  cursor: 'Cursor',
  specstory: 'SpecStory',
  deepseek: 'DeepSeek',
  'chat-messages': 'Chat messages',
  'vscode-chat': 'VS Code Chat',
  lmstudio: 'LM Studio',
  jan: 'Jan',
  whatsapp: 'WhatsApp',
};

export function sourceName(source: string | undefined, t: Translate): string {
  if (!source) return t('source.unknown');
  return SOURCE_NAMES[source] ?? source;
}

export interface Formatters {
  number(value: number): string;
  percent(fraction: number): string;
  /** A percentage to one decimal (a similarity of 0.964 is 96.4 %, not 96 %). */
  percentPrecise(fraction: number): string;
  date(iso: string): string;
  dateTime(iso: string): string;
  shortDate(iso: string): string;
  relative(iso: string, now?: number): string;
  bytes(size: number): string;
  duration(ms: number): string;
  source(source: string | undefined): string;
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

export function createFormatters(language: Language, t: Translate): Formatters {
  const numberFormat = new Intl.NumberFormat(language);
  const percentFormat = new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 0 });
  const precisePercentFormat = new Intl.NumberFormat(language, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const dateFormat = new Intl.DateTimeFormat(language, { dateStyle: 'medium' });
  const dateTimeFormat = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' });
  const shortDateFormat = new Intl.DateTimeFormat(language, { month: 'short', day: 'numeric' });
  const relativeFormat = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
  const valid = (iso: string): Date | null => {
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? null : date;
  };
  return {
    number: (value) => numberFormat.format(value),
    percent: (fraction) => percentFormat.format(fraction),
    // Rounded down, so that 0.9996 does not read as the 100 % of identical text.
    percentPrecise: (fraction) => precisePercentFormat.format(Math.floor(fraction * 1000) / 1000),
    date: (iso) => {
      const date = valid(iso);
      return date ? dateFormat.format(date) : t('common.unknown');
    },
    dateTime: (iso) => {
      const date = valid(iso);
      return date ? dateTimeFormat.format(date) : t('common.unknown');
    },
    shortDate: (iso) => {
      const date = valid(iso);
      return date ? shortDateFormat.format(date) : '';
    },
    relative: (iso, now = Date.now()) => {
      const date = valid(iso);
      if (!date) return t('common.unknown');
      const diff = date.getTime() - now;
      for (const [unit, size] of UNITS) {
        if (Math.abs(diff) >= size) return relativeFormat.format(Math.round(diff / size), unit);
      }
      return relativeFormat.format(0, 'minute');
    },
    bytes: (size) => {
      const units = ['B', 'KB', 'MB', 'GB'];
      let value = size;
      let unit = 0;
      while (value >= 1024 && unit < units.length - 1) {
        value /= 1024;
        unit++;
      }
      return `${new Intl.NumberFormat(language, { maximumFractionDigits: value < 10 && unit > 0 ? 1 : 0 }).format(value)} ${units[unit]}`;
    },
    duration: (ms) => (ms < 1000 ? `${numberFormat.format(Math.round(ms))} ms` : `${new Intl.NumberFormat(language, { maximumFractionDigits: 1 }).format(ms / 1000)} s`),
    source: (source) => sourceName(source, t),
  };
}

export function useFormat(): Formatters {
  const language = useLanguage();
  const t = useT();
  return useMemo(() => createFormatters(language, t), [language, t]);
}

/** The first characters of an id, for tight places (the full id goes into a title or an accessible name). */
export function shortId(id: string, length = 10): string {
  return id.length > length + 1 ? `${id.slice(0, length)}…` : id;
}
