/**
 * Redaction: well-known secrets in a message are replaced with `[REDACTED:<kind>]` before the
 * message is hashed, chunked, embedded or stored, so no copy of them is ever written. The rules are
 * in rules.ts. What is not a secret stays: hex ids, git SHAs, UUIDs, base64 images (a `data:` URL is
 * never looked into), example keys (`...EXAMPLE`), and assignments whose value is a variable, a path
 * or a placeholder (`password: string`, `api_key = os.environ["KEY"]`, `token: <your token>`).
 */
import { REDACTION_RULES, type RedactionKind, type RedactionRule } from './rules.js';

export { REDACTION_KINDS, type RedactionKind } from './rules.js';

export interface Redaction {
  text: string;
  /** Secrets replaced. */
  count: number;
  kinds: Partial<Record<RedactionKind, number>>;
}

export const redactionMark = (kind: RedactionKind) => `[REDACTED:${kind}]`;

const DATA_URL = /data:[\w/+.-]{1,100};base64,[A-Za-z0-9+/=\s]{16,}/g;

// Any rule's keyword: most messages hold none, and one pass over them settles it.
const ANY_KEYWORD = new RegExp([...new Set(REDACTION_RULES.flatMap((r) => r.keywords))].map((k) => k.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'i');

/** Replaces the secrets of `text`; `text` comes back unchanged (the same string) when it has none. */
export function redactText(text: string): Redaction {
  const result: Redaction = { text, count: 0, kinds: {} };
  if (!ANY_KEYWORD.test(text)) return result;
  const lower = text.toLowerCase();
  let protectedSpans: Array<[number, number]> | null = null;
  for (const rule of REDACTION_RULES) {
    if (!rule.keywords.some((k) => lower.includes(k))) continue;
    protectedSpans ??= dataUrlSpans(result.text);
    const spans = protectedSpans;
    let replaced = 0;
    const next = result.text.replace(rule.pattern, (...args: unknown[]) => {
      const match = args[0] as string;
      const named = typeof args.at(-1) === 'object' ? (args.at(-1) as Record<string, string | undefined>) : undefined;
      const offset = args.at(named ? -3 : -2) as number;
      if (spans.some(([start, end]) => offset < end && offset + match.length > start)) return match;
      const pre = named?.pre ?? '';
      const secret = named?.secret ?? match.slice(pre.length);
      if (!isSecret(rule, secret, pre)) return match;
      replaced++;
      return pre + redactionMark(rule.kind) + match.slice(pre.length + secret.length);
    });
    if (replaced > 0) {
      result.text = next;
      result.count += replaced;
      result.kinds[rule.kind] = (result.kinds[rule.kind] ?? 0) + replaced;
      // Spans found before a replacement no longer line up with the text.
      protectedSpans = null;
    }
  }
  return result;
}

function dataUrlSpans(text: string): Array<[number, number]> {
  if (!text.includes('data:')) return [];
  return [...text.matchAll(DATA_URL)].map((m) => [m.index, m.index + m[0].length]);
}

function isSecret(rule: RedactionRule, value: string, pre: string): boolean {
  // Keys from providers' documentation (AKIAIOSFODNN7EXAMPLE, ...) are published on purpose.
  if (value.includes('EXAMPLE') || value.startsWith('[REDACTED:')) return false;
  if (rule.minLength !== undefined && value.length < rule.minLength) return false;
  if (rule.valueChecks && !looksLikeValue(value, rule.literalWords === true && isLiteralWord(value, pre))) return false;
  if (rule.tokenLike && !looksLikeToken(value)) return false;
  if (rule.minEntropy !== undefined && shannonEntropy(value) < rule.minEntropy) return false;
  return true;
}

const PLACEHOLDER_START = /^(?:your|example|sample|dummy|placeholder|redacted|insert|enter|replace|changeit)(?:[_\-\s]|$)/i;
// A name, or a dotted path of names (`userPassword`, `process.env.API_KEY`, `settings.secret`).
const IDENTIFIER_PATH = /^[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

// Words that name a type or a state, not a password (`password: string`, `"password": "required"`).
const TYPE_WORDS = new Set(['string', 'str', 'text', 'number', 'int', 'integer', 'boolean', 'bool', 'null', 'none', 'nil', 'undefined', 'true', 'false', 'required', 'optional', 'hidden', 'empty', 'changed', 'unset']);
// A word that names where a password is kept (`password=db_password`, `pass=userPass`).
const NAME_LIKE = /[._]|pass|pwd|secret|cred|key|token|hash/i;

/** A bare word that is quoted, or written right after `=`, and reads as neither a name nor a type. */
function isLiteralWord(value: string, pre: string): boolean {
  const quoted = /["'`]$/.test(pre);
  const tight = /[A-Za-z]["']?:?=$/.test(pre);
  return (quoted || tight) && !NAME_LIKE.test(value) && !/[a-z][A-Z]/.test(value) && !TYPE_WORDS.has(value.toLowerCase());
}

/** An opaque token: a digit, or two of lower case, upper case and `._~+/=`; never a name. */
function looksLikeToken(value: string): boolean {
  const trimmed = value.replace(/[.]+$/, '');
  if (/\d/.test(trimmed)) return true;
  if (IDENTIFIER_PATH.test(trimmed)) return false;
  return [/[a-z]/, /[A-Z]/, /[._~+/=]/].filter((re) => re.test(trimmed)).length >= 2;
}

/**
 * An assignment's value that could be a literal secret, not code, a path or a placeholder.
 * `literalWord`: the value is known to be a literal, so a plain word is taken too.
 */
function looksLikeValue(value: string, literalWord = false): boolean {
  if (/^[$<{%*[#@(&|!]/.test(value)) return false;
  if (/\$\{|\{\{|\(|\bprocess\.env\b|\bos\.environ\b|\bgetenv\b/.test(value)) return false;
  if (/^(?:\/|~\/|\.\.?\/|[A-Za-z]:\\)/.test(value) || value.includes('://')) return false;
  if (IDENTIFIER_PATH.test(value) && !literalWord) return false;
  if (/^(.)\1+$/.test(value) || /^x{3,}/i.test(value)) return false;
  if (PLACEHOLDER_START.test(value)) return false;
  return true;
}

/** Bits per character of the value's character distribution. */
export function shannonEntropy(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  const n = [...value].length;
  let bits = 0;
  for (const c of counts.values()) {
    const p = c / n;
    bits -= p * Math.log2(p);
  }
  return bits;
}
