/**
 * The secrets redaction looks for, as data: one entry per kind of secret, in the order they are
 * applied (more specific formats first, so that `sk-ant-...` is named Anthropic, not a generic key).
 *
 * The token formats are the ones the providers publish and that secret scanners (gitleaks'
 * `config/gitleaks.toml`, secretlint's rule packages) match: fixed prefixes with a known alphabet and
 * length. Where a secret has no format of its own (a password, an API key in a config file) it is
 * found by its name in an assignment, and only a value that looks random enough is taken.
 *
 * A rule's `secret` named group is what is replaced; without one the whole match is. `keywords`
 * (lower case) must occur in the text for the rule to run at all, which keeps redaction cheap on the
 * ordinary messages that hold none of them.
 */
/** Changes whenever the rules change, so that inputs saved under older rules are looked at again. */
export const REDACTION_RULES_VERSION = 'rules-2';

export interface RedactionRule {
  kind: RedactionKind;
  pattern: RegExp;
  keywords: readonly string[];
  /** The value must look random: at least this many bits of Shannon entropy per character. */
  minEntropy?: number;
  /** A value shorter than this is not taken (assignments). */
  minLength?: number;
  /** Assignments: the value must not look like a placeholder, a variable or a path. */
  valueChecks?: boolean;
  /**
   * A plain word is a literal, not a variable, when it is quoted or written right after `=`
   * (`password=letmein`, `"password": "letmein"`), unless it reads as a name or a type
   * (`password=password`, `password=db_password`, `"password": "string"`).
   */
  literalWords?: boolean;
  /** The value must look like a token (a digit, or two of lower case, upper case and `._~+/=`), not a word or a name. */
  tokenLike?: boolean;
}

export const REDACTION_KINDS = [
  'private-key',
  'aws-access-key',
  'aws-secret-key',
  'google-api-key',
  'google-oauth',
  'azure-key',
  'github-token',
  'gitlab-token',
  'anthropic-key',
  'openai-key',
  'slack-token',
  'stripe-key',
  'api-key',
  'jwt',
  'bearer-token',
  'url-password',
  'password',
  'secret',
] as const;
export type RedactionKind = (typeof REDACTION_KINDS)[number];

// Characters that may sit right before or after a token without being part of it.
const B = String.raw`(?<![A-Za-z0-9_-])`;
const E = String.raw`(?![A-Za-z0-9_-])`;

// A PEM block's first and last lines, and what separates its lines (escaped newlines included).
const PEM_BEGIN = '-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----';
const PEM_END = '-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----';
const PEM_SEP = String.raw`(?:\s|\\[nr])`;

const ASSIGN_NAMES = String.raw`secret|client[_-]?secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|session[_-]?token|token`;
// `client_secret = ...`, `"api_key": "..."`, `API_KEY=...`, `token => '...'`, `--password ...` is not an assignment.
const ASSIGN = String.raw`(?<![A-Za-z])(?:${ASSIGN_NAMES})["']?\s*(?::=|=>|[:=])\s*`;

export const REDACTION_RULES: readonly RedactionRule[] = [
  {
    kind: 'private-key',
    // A PEM block: its header lines, the base64 lines of the body and the end line, also with `\n`
    // escapes (a service-account JSON pasted as text), or a block whose end was cut off. Only base64
    // lines are taken (at least one long one), so a header line in prose takes nothing after it.
    pattern: new RegExp(String.raw`${PEM_BEGIN}(?:${PEM_SEP}*(?:Proc-Type|DEK-Info|Comment):[^\n\\]{1,200})*(?:${PEM_SEP}+[A-Za-z0-9+/=]{16,}){1,400}(?:${PEM_SEP}+[A-Za-z0-9+/]{0,15}={1,2}(?![A-Za-z0-9+/=]))?(?:(?:${PEM_SEP}+[A-Za-z0-9+/]{1,15})?${PEM_SEP}*${PEM_END})?`, 'g'),
    keywords: ['private key'],
  },
  { kind: 'aws-access-key', pattern: new RegExp(String.raw`${B}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}${E}`, 'g'), keywords: ['akia', 'asia', 'abia', 'acca', 'a3t'] },
  {
    kind: 'aws-secret-key',
    pattern: /(?<pre>aws_?secret(?:_?access)?_?key["']?\s*(?::=|=>|[:=])\s*["']?)(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    keywords: ['secret'],
  },
  { kind: 'google-api-key', pattern: new RegExp(String.raw`${B}AIza[0-9A-Za-z_-]{35}${E}`, 'g'), keywords: ['aiza'] },
  // OAuth client secrets, and access and refresh tokens.
  { kind: 'google-oauth', pattern: new RegExp(String.raw`${B}(?:GOCSPX-[A-Za-z0-9_-]{28}|ya29\.[0-9A-Za-z_-]{20,}|1//0[0-9A-Za-z_-]{40,})${E}`, 'g'), keywords: ['gocspx', 'ya29.', '1//0'] },
  {
    kind: 'azure-key',
    // Storage account keys in connection strings, SAS signatures, and Entra ID client secrets (`xxx8Q~...`).
    pattern: /(?<pre>AccountKey=|SharedAccessKey=|[?&]sig=)(?<secret>[A-Za-z0-9+/%]{40,100}={0,2})|(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g,
    keywords: ['accountkey=', 'sharedaccesskey=', 'sig=', 'q~'],
  },
  { kind: 'github-token', pattern: new RegExp(String.raw`${B}(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{50,255})${E}`, 'g'), keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'] },
  { kind: 'gitlab-token', pattern: new RegExp(String.raw`${B}(?:gl(?:pat|dt|ptt|rt|cbt|ft|soat|imt|oas)-[A-Za-z0-9_-]{20,}|GR1348941[A-Za-z0-9_-]{20,})${E}`, 'g'), keywords: ['glpat-', 'gldt-', 'glptt-', 'glrt-', 'glcbt-', 'glft-', 'glsoat-', 'glimt-', 'gloas-', 'gr1348941'] },
  { kind: 'anthropic-key', pattern: new RegExp(String.raw`${B}sk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_-]{20,}${E}`, 'g'), keywords: ['sk-ant-'] },
  {
    kind: 'openai-key',
    // Project, service-account and admin keys, keys carrying OpenAI's marker, and the 48-character legacy keys.
    pattern: new RegExp(String.raw`${B}sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{48})${E}`, 'g'),
    keywords: ['sk-'],
  },
  { kind: 'slack-token', pattern: new RegExp(String.raw`${B}(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Z0-9]+-\d+-[A-Za-z0-9]+)|https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}`, 'g'), keywords: ['xox', 'xapp-', 'hooks.slack.com'] },
  // Secret and restricted keys, and webhook signing secrets; publishable `pk_` keys are public by design.
  { kind: 'stripe-key', pattern: new RegExp(String.raw`${B}(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}|whsec_[A-Za-z0-9+/=]{32,})${E}`, 'g'), keywords: ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_', 'whsec_'] },
  // Other providers' `sk-` keys (DeepSeek, OpenRouter, Moonshot, ...): long random values after `sk-`.
  { kind: 'api-key', pattern: new RegExp(String.raw`${B}sk-(?:or-v1-)?[A-Za-z0-9]{32,}${E}`, 'g'), keywords: ['sk-'], minEntropy: 3.5 },
  { kind: 'jwt', pattern: new RegExp(String.raw`${B}eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*${E}`, 'g'), keywords: ['eyj'] },
  {
    kind: 'bearer-token',
    pattern: /(?<pre>\b(?:Authorization["']?\s*[:=]\s*["']?(?:Bearer|Token|Basic)|Bearer)\s+)(?<secret>[A-Za-z0-9._~+/-]{12,}=*)/gi,
    keywords: ['bearer', 'authorization'],
    minEntropy: 3,
    // "bearer authentication" is prose, `Bearer getToken()` code.
    tokenLike: true,
  },
  {
    kind: 'url-password',
    // scheme://user:password@host, also with no user (`redis://:password@host`)
    pattern: /(?<pre>\b[A-Za-z][A-Za-z0-9+.-]{1,20}:\/\/[^\s:@/'"`<>]{0,100}:)(?<secret>[^\s@/'"`<>]{1,200})(?=@[A-Za-z0-9[])/g,
    keywords: ['://'],
    valueChecks: true,
  },
  {
    kind: 'password',
    pattern: new RegExp(String.raw`(?<pre>(?<![A-Za-z])(?:passwords?|passwd|passphrase|pwd)["']?\s*(?::=|=>|[:=])\s*["'\`]?)(?<secret>(?<=["'\`])[^"'\`\n]{6,200}(?=["'\`])|[^\s"'\`,;)}\]]{6,200})`, 'gi'),
    keywords: ['pass', 'pwd'],
    minLength: 6,
    valueChecks: true,
    literalWords: true,
  },
  {
    kind: 'secret',
    pattern: new RegExp(String.raw`(?<pre>${ASSIGN}["'\`]?)(?<secret>[^\s"'\`,;)}\]]{16,500})`, 'gi'),
    keywords: ['secret', 'key', 'token'],
    // 32 random hex digits often measure under 3.5 bits; names, paths and placeholders are excluded apart.
    minEntropy: 3,
    minLength: 16,
    valueChecks: true,
  },
];
