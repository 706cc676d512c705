import { describe, expect, it } from 'vitest';
import { redactText } from '../electron/engine/privacy/redaction/redact.js';
import { normalizeSession } from '../electron/engine/save/normalize.js';
import { contentHash } from '../electron/engine/save/hashing.js';
import { seededChars } from './helpers/random.js';

// Secrets are generated (random characters in each provider's format), so no real or published key
// sits in this file. The generator is seeded: a failure names the same text every run.
const random = seededChars(42);
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const B64URL = ALNUM + '-_';
const HEX = '0123456789abcdef';

function expectRedacted(text: string, secret: string, kind: string) {
  const r = redactText(text);
  expect(r.text, `${kind} in: ${text}`).not.toContain(secret);
  expect(r.text).toContain(`[REDACTED:${kind}]`);
  expect(r.kinds[kind as keyof typeof r.kinds]).toBeGreaterThanOrEqual(1);
  return r;
}

describe('redaction: each kind of secret is replaced', () => {
  it('private key blocks, whole, with escaped newlines, or cut off', () => {
    const body = Array.from({ length: 6 }, () => random(ALNUM + '+/', 64)).join('\n');
    const pem = `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----`;
    const r = expectRedacted(`Here is my key:\n${pem}\nWhy does ssh refuse it?`, body.slice(0, 40), 'private-key');
    expect(r.text).toBe('Here is my key:\n[REDACTED:private-key]\nWhy does ssh refuse it?');
    const escaped = `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n${body.replace(/\n/g, '\\n')}\\n-----END PRIVATE KEY-----\\n", "client_email": "x@y.iam.gserviceaccount.com"}`;
    const e = expectRedacted(escaped, body.slice(0, 40), 'private-key');
    expect(e.text).toContain('"client_email": "x@y.iam.gserviceaccount.com"');
    expectRedacted(`-----BEGIN OPENSSH PRIVATE KEY-----\n${body}`, body.slice(-40), 'private-key');
  });

  it('cloud provider keys: AWS, Google, Azure', () => {
    const akid = 'AKIA' + random(UPPER + '234567', 16);
    expectRedacted(`aws configure set aws_access_key_id ${akid}`, akid, 'aws-access-key');
    const awsSecret = random(ALNUM + '/+', 40);
    expectRedacted(`aws_secret_access_key = ${awsSecret}`, awsSecret, 'aws-secret-key');
    const google = 'AIza' + random(B64URL, 35);
    expectRedacted(`const url = "https://maps.googleapis.com/maps/api/geocode/json?key=${google}"`, google, 'google-api-key');
    const gocspx = 'GOCSPX-' + random(B64URL, 28);
    expectRedacted(`client secret ${gocspx}`, gocspx, 'google-oauth');
    const accountKey = random(ALNUM + '+/', 86) + '==';
    const conn = `DefaultEndpointsProtocol=https;AccountName=store1;AccountKey=${accountKey};EndpointSuffix=core.windows.net`;
    const a = expectRedacted(conn, accountKey, 'azure-key');
    expect(a.text).toContain('AccountName=store1;AccountKey=[REDACTED:azure-key];EndpointSuffix');
    const entra = random(ALNUM, 3) + '8Q~' + random(ALNUM + '_~.-', 34);
    expectRedacted(`AZURE_CLIENT_SECRET: ${entra}`, entra, 'azure-key');
  });

  it('GitHub, GitLab, OpenAI, Anthropic, Slack and Stripe tokens', () => {
    const cases: Array<[string, string]> = [
      ['ghp_' + random(ALNUM, 36), 'github-token'],
      ['github_pat_' + random(ALNUM, 22) + '_' + random(ALNUM, 59), 'github-token'],
      ['glpat-' + random(B64URL, 20), 'gitlab-token'],
      ['sk-proj-' + random(B64URL, 120), 'openai-key'],
      ['sk-' + random(ALNUM, 20) + 'T3BlbkFJ' + random(ALNUM, 20), 'openai-key'],
      ['sk-ant-api03-' + random(B64URL, 93) + 'AA', 'anthropic-key'],
      ['xoxb-' + random(DIGITS, 12) + '-' + random(DIGITS, 13) + '-' + random(ALNUM, 24), 'slack-token'],
      ['https://hooks.slack.com/services/T' + random(UPPER, 8) + '/B' + random(UPPER, 8) + '/' + random(ALNUM, 24), 'slack-token'],
      ['sk_live_' + random(ALNUM, 24), 'stripe-key'],
      ['rk_test_' + random(ALNUM, 24), 'stripe-key'],
      ['sk-' + random(HEX, 32), 'api-key'],
    ];
    for (const [token, kind] of cases) expectRedacted(`export TOKEN_VALUE=${token}\nthen run it`, token, kind);
    // Anthropic keys are named as such, not as a generic key.
    expect(redactText('key sk-ant-api03-' + random(B64URL, 90)).kinds).toEqual({ 'anthropic-key': 1 });
  });

  it('JWTs, bearer tokens, passwords in URLs, and password or key assignments', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ' + random(B64URL, 60) + '.' + random(B64URL, 43);
    expectRedacted(`the cookie is session=${jwt}; Path=/`, jwt, 'jwt');
    const opaque = random(ALNUM, 40);
    const b = expectRedacted(`curl -H "Authorization: Bearer ${opaque}" https://api.example.com/v1/me`, opaque, 'bearer-token');
    expect(b.text).toContain('"Authorization: Bearer [REDACTED:bearer-token]"');
    const dbPass = 'pA5' + random(ALNUM, 10) + '!';
    const u = expectRedacted(`DATABASE_URL=postgres://app:${dbPass}@db.internal:5432/prod`, dbPass, 'url-password');
    expect(u.text).toBe('DATABASE_URL=postgres://app:[REDACTED:url-password]@db.internal:5432/prod');
    expectRedacted('password = "correct horse 9 staple"', 'correct horse 9 staple', 'password');
    expectRedacted("DB_PASSWORD=Tr0ub4dor&3x", 'Tr0ub4dor&3x', 'password');
    const apiKey = random(HEX, 32);
    const k = expectRedacted(`{"api_key": "${apiKey}", "region": "eu"}`, apiKey, 'secret');
    expect(k.text).toBe('{"api_key": "[REDACTED:secret]", "region": "eu"}');
    const clientSecret = random(ALNUM, 24);
    expectRedacted(`client_secret: ${clientSecret}`, clientSecret, 'secret');
  });

  it('a cut-off key loses its base64 lines only, not the prose after them', () => {
    const body = Array.from({ length: 4 }, () => random(ALNUM + '+/', 64)).join('\n');
    const r = expectRedacted(`-----BEGIN PRIVATE KEY-----\n${body}\nThe rest did not fit in the message, sorry.`, body.slice(-40), 'private-key');
    expect(r.text).toBe('[REDACTED:private-key]\nThe rest did not fit in the message, sorry.');
  });

  it('a password in a URL with no user name, and a plain word assigned to a password', () => {
    const u = expectRedacted('REDIS_URL=redis://:p4ss@cache.internal:6379/0', 'p4ss', 'url-password');
    expect(u.text).toBe('REDIS_URL=redis://:[REDACTED:url-password]@cache.internal:6379/0');
    const p = expectRedacted('mysql -u root --host db password=letmein', 'letmein', 'password');
    expect(p.text).toBe('mysql -u root --host db password=[REDACTED:password]');
    expectRedacted('{"user": "admin", "password": "letmein"}', 'letmein', 'password');
    expectRedacted("export DB_PASSWORD='sunshine'", 'sunshine', 'password');
  });

  it('counts every secret replaced in a text', () => {
    const a = 'ghp_' + random(ALNUM, 36);
    const b = 'ghp_' + random(ALNUM, 36);
    const r = redactText(`old ${a}, new ${b}, and AKIA${random(UPPER, 16)}`);
    expect(r.count).toBe(3);
    expect(r.kinds).toEqual({ 'github-token': 2, 'aws-access-key': 1 });
  });
});

describe('redaction: what is not a secret stays', () => {
  const untouched: Array<[string, string]> = [
    ['a git SHA', `Reverted in commit ${random(HEX, 40)}; see also ${random(HEX, 7)}.`],
    ['a sha256 digest', `sha256: ${random(HEX, 64)}`],
    ['UUIDs', `session 550e8400-e29b-41d4-a716-446655440000 and request id ${random(HEX, 8)}-${random(HEX, 4)}-4${random(HEX, 3)}-a${random(HEX, 3)}-${random(HEX, 12)}`],
    ['a base64 image', `![chart](data:image/png;base64,iVBORw0KGgo${random(ALNUM + '+/', 3000)}==)`],
    ['a base64 image holding key-like bytes', `<img src="data:image/jpeg;base64,/9j/${random(ALNUM, 40)}+AKIA${random(UPPER, 16)}+${random(ALNUM, 40)}">`],
    ['AWS documentation keys', 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
    ['code that reads a secret', 'const apiKey = process.env.OPENAI_API_KEY;\nclient = OpenAI(api_key=os.environ["OPENAI_API_KEY"])\npassword: string;\nconst token = await getToken();'],
    ['a type annotation and a variable', 'interface Login { password: string; token: AccessToken }\nif (password === confirmPassword) save();'],
    ['placeholders', 'Set API_KEY=your_api_key_here and password=<your password>, or token: ${GITHUB_TOKEN}.'],
    ['a URL with a port and no password', 'Open http://localhost:5173/sessions or git@github.com:org/repo.git'],
    ['a URL with a placeholder password', 'postgres://user:password@localhost/db'],
    ['prose about tokens', 'The model counts tokens: prompt_tokens=1200, max_tokens: 4096. Bearer tokens expire after an hour.'],
    ['prose about bearer authentication', 'The API uses bearer authentication; Bearer Authentication is described in RFC 6750. Set the header with Bearer getAccessToken().'],
    ['a private key header with no key after it', '-----BEGIN PRIVATE KEY-----\nThat line is all the file holds, and openssl says it cannot read it. What went wrong with the export?'],
    ['a private key header named in prose, far from its end line', 'A key file starts with -----BEGIN PRIVATE KEY----- and, after the base64 lines, ends with -----END PRIVATE KEY----- on a line of its own.'],
    ['passwords passed on by name', 'connect(user=user, password=password)\nlogin(password=db_password, passphrase=self.passphrase)\nPassword: changed successfully.\n{"password": "string", "minLength": 8}'],
    ['publishable Stripe keys', `pk_live_${random(ALNUM, 24)}`],
    ['a task id in a path', `/tmp/sk-${random(LOWER, 6)}/build and sk-learn`],
  ];
  for (const [what, text] of untouched) {
    it(what, () => {
      const r = redactText(text);
      expect(r.count, r.text).toBe(0);
      expect(r.text).toBe(text);
    });
  }
});

describe('redaction in a save', () => {
  it('redacts a message each time it is saved with redaction, and leaves it whole each time it is saved without, in one process', () => {
    const secret = `ghp_${random(ALNUM, 36)}`;
    const input = { sessionId: 's', messages: [{ msgId: 'm', role: 'user' as const, content: `my token is ${secret}` }] };
    const plain = () => normalizeSession(input, { redact: false }).session;
    const redacted = () => normalizeSession(input, { redact: true }).session;
    // Each order: the second of two saves of the same text gives what a first save of it gives.
    for (const save of [plain, redacted, plain, redacted, redacted, plain]) {
      const session = save();
      const message = session.messages[0]!;
      if (save === plain) {
        expect(message.content).toContain(secret);
        expect(session.redacted).toBe(0);
      } else {
        expect(message.content).not.toContain(secret);
        expect(message.content).toContain('[REDACTED:github-token]');
        expect(session.redacted).toBe(1);
      }
      expect(message.contentHash).toBe(contentHash('user', message.content));
    }
  });
});
