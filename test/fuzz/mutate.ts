/**
 * Hostile transcripts: valid seeds of every format, mutated by a seeded PRNG.
 *
 * Structural mutations work on the parsed JSON (wrong types, missing fields, duplicate ids, cycles
 * in the tree formats, prototype keys, huge strings, deep nesting, gigantic arrays), byte mutations
 * on the serialized file (truncation, flipped bytes, invalid UTF-8, NULs and control characters,
 * BOMs, line endings). Every case is a pure function of its seed, and lists what was done to it so
 * that a failure message says what the file looks like.
 */
import { buildZip, type ZipEntrySpec } from '../importers/write-zip.js';
import { Rng } from './prng.js';
import { seedsOf, type FuzzFormat, type Seed } from './seeds.js';

export type CaseFormat = FuzzFormat | 'zip';
export const CASE_FORMATS: readonly CaseFormat[] = ['json', 'chatgpt', 'claude', 'openclaw', 'open-webui', 'sillytavern', 'claude-code', 'markdown', 'codex', 'gemini-cli', 'continue', 'qwen-code', 'copilot-cli', 'antigravity', 'zip'];

export type Extra = 'tools' | 'thinking';

export interface FuzzCase {
  format: CaseFormat;
  index: number;
  seed: number;
  /** Base name of the file to write (the importers derive some session ids from it). */
  fileName: string;
  bytes: Buffer;
  /** What was done to the seed, in order. */
  ops: string[];
  include: Extra[];
  /** Read with the streaming (two-pass) reader instead of whole-file parsing. */
  streaming: boolean;
  /** Carries a string of several MB (or a very long tree); gets a longer time budget. */
  heavy: boolean;
}

export interface CaseOptions {
  /** Probability of a several-MB string, a gigantic array or a very long tree. */
  heavyChance: number;
  /** Bias towards mutations the importers accept but the engine may refuse (whitespace ids and content). */
  engineBias?: boolean;
}

type Holder = Record<string, unknown> | unknown[];
interface Slot {
  holder: Holder;
  key: string | number;
  path: string;
}

/** Keys whose values the mappers read, matched case-insensitively. */
const IMPORTANT_KEY = /^(id|uuid|session_?id|conversation_id|msg_?id|parent(_message_uuid|Id|Uuid)?|logicalParentUuid|current_node|currentId|current_leaf_message_uuid|children(Ids)?|role|sender|author|type|content|content_type|parts|text|mes|swipes|swipe_id|is_user|is_system|name|title|timestamp|create_time|created_at|send_date|create_date|input|arguments|thinking|thoughts|message|messages|mapping|chat_messages|history|chat|recipient|attachments|files|extracted_content|file_name|toolName|isMeta|isSidechain|summary)$/i;

const TIME_KEY = /time|date|timestamp|_at$/i;
const LINK_KEY = /^(id|uuid|session_?id|conversation_id|msg_?id|parent(_message_uuid|Id|Uuid)?|logicalParentUuid|current_node|currentId|current_leaf_message_uuid|children(Ids)?)$/i;
const ARGUMENT_KEY = /^(input|arguments)$/i;
const TEXT_KEY = /^(content|parts|text|mes|swipes|thinking|thoughts|summary|extracted_content|name|title)$/i;

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf'];
const WHITESPACE = [' ', '  ', '\t', '\n', '\r\n', ' \n\t ', '\u00a0', '\u3000', '\u2028', '\ufeff', '\u200b'];
const EDGE_STRINGS = [
  '',
  '0',
  'null',
  'undefined',
  'NaN',
  'true',
  'user',
  'assistant',
  'system',
  'tool',
  'human',
  'toolResult',
  'session',
  'message',
  'text',
  'multimodal_text',
  '\u0000',
  'a\u0000b',
  '\u0001\u0002\u0003\u001f\u007f',
  '\r',
  'line1\nline2\r\nline3',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\udc00y',
  '\ud83d\ude00',
  '\u202eRTL',
  '\ufeffbom',
  '你好',
  '2024-13-45T99:99:99Z',
  '+275760-09-13T00:00:00.001Z',
  '-271821-04-20T00:00:00.000Z',
  '1970-01-01T00:00:00Z',
  'May 99, 2024 99:99pm',
  'Smarch 1, 2024 1:00pm',
  '2024-05-01@99h99m99s',
  '<details type="reasoning">',
  '<details type="tool_calls" name="x" arguments="{" result="}"></details>',
  '</details>',
  '${x}',
  '%s%n',
  '../../etc/passwd',
  'C:\\con\\nul',
];
const EDGE_NUMBERS = [0, -0, -1, 1, 1.5, 0.1, 255, 2 ** 31, 2 ** 32, 2 ** 53 + 2, 1e11, 1e15, 8.64e15 + 1, 1e20, 1e300, -1e300, 5e-324, 1768208405000, 1717000000.25];
/** Tokens that are not JSON: where they are written, the file stops being valid JSON. */
const BAD_TOKENS = ['NaN', 'Infinity', '-Infinity', 'undefined', "'single'", '0x10', '01', '1.', '.5', '+1', '"\\x41"', '"\\u12"', '"tab\there"', '[1,]', '{"a":1,}', '{a:1}', '//c', '/*c*/1', '"\\ud800"', '"\\udc00\\ud800"', '1e99999', '-'];
/** Repeated to make huge strings: each stresses something (whitespace handling, regexes, escaping). */
const HUGE_UNITS = [' ', '\t', 'a', '#', '-', '- ', '*', '>', '`', '"', '\\', '\n', '\r\n', 'x\n', '你', '\ud83d\ude00', 'User: ', '**User:** hi\n', '<details type="reasoning">', '<details type="tool_calls" name="t" arguments="', '</details>', '&quot;', '{', '[', '\u0000', '\u2028'];

export function generateCase(format: CaseFormat, index: number, seed: number, options: CaseOptions): FuzzCase {
  const rng = new Rng(seed);
  const include: Extra[] = rng.weighted<Extra[]>([
    [3, []],
    [4, ['tools', 'thinking']],
    [1, ['tools']],
    [1, ['thinking']],
  ]);
  const base = { format, index, seed, include, streaming: false, heavy: false };
  if (format === 'zip') return { ...base, ...zipCase(rng, index, options) };

  const seedDoc = rng.pick(seedsOf(format));
  const builder = new CaseBuilder(rng.fork(), seedDoc, options);
  const built = builder.build();
  const streaming = seedDoc.shape === 'document' && rng.chance(0.3);
  return { ...base, fileName: built.fileName, bytes: built.bytes, ops: built.ops, streaming, heavy: built.heavy };
}

class CaseBuilder {
  private readonly raw = new Map<string, string>();
  private readonly ops: string[] = [];
  private heavy = false;

  constructor(
    private readonly rng: Rng,
    private readonly seed: Seed,
    private readonly options: CaseOptions,
  ) {}

  build(): { fileName: string; bytes: Buffer; ops: string[]; heavy: boolean } {
    const { rng, seed } = this;
    this.ops.push(`seed ${seed.format}/${seed.name}`);

    if (rng.chance(this.options.engineBias ? 0.03 : 0.08)) {
      const whole = this.wholeFileCase();
      return { fileName: seed.name, bytes: whole, ops: this.ops, heavy: this.heavy };
    }

    let text: string;
    if (seed.shape === 'text') {
      text = this.mutateMarkdown(seed.text);
    } else {
      const wrapper: unknown[] = [structuredClone(seed.shape === 'document' ? seed.value : seed.lines)];
      const structural = this.options.engineBias
        ? rng.weighted<number>([
            [3, 1],
            [2, 2],
            [1, 0],
          ])
        : rng.weighted<number>([
            [1, 0],
            [5, 1],
            [3, 2],
            [2, 3],
          ]);
      for (let i = 0; i < structural; i++) this.structuralOp(wrapper);
      if (seed.shape === 'jsonl' && rng.chance(0.3)) this.lineOp(wrapper);
      text = this.serialize(wrapper[0]);
    }

    let bytes: Buffer = Buffer.from(text, 'utf8');
    const byteOps = this.options.engineBias
      ? rng.weighted<number>([
          [9, 0],
          [1, 1],
        ])
      : rng.weighted<number>([
          [16, 0],
          [3, 1],
          [1, 2],
        ]);
    for (let i = 0; i < byteOps; i++) bytes = this.byteOp(bytes);
    return { fileName: seed.name, bytes, ops: this.ops, heavy: this.heavy };
  }

  // ---- serialization -------------------------------------------------------------------------

  /** A placeholder value that is replaced by `text` verbatim in the serialized file. */
  private rawToken(text: string): string {
    const token = `__fuzz_raw_${this.raw.size}__`;
    this.raw.set(token, text);
    return token;
  }

  private serialize(value: unknown): string {
    let text: string;
    if (this.seed.shape === 'jsonl' && Array.isArray(value)) {
      text = value.map((line) => JSON.stringify(line) ?? 'null').join('\n') + (this.rng.chance(0.8) ? '\n' : '');
    } else {
      text = JSON.stringify(value, null, this.rng.chance(0.5) ? 2 : undefined) ?? 'null';
    }
    for (const [token, fragment] of this.raw) text = text.split(`"${token}"`).join(fragment);
    return text;
  }

  // ---- structural mutations ------------------------------------------------------------------

  private slots(wrapper: unknown[]): Slot[] {
    const found: Slot[] = [{ holder: wrapper, key: 0, path: '$' }];
    const stack: Slot[] = [found[0]!];
    while (stack.length > 0 && found.length < 20_000) {
      const slot = stack.pop()!;
      const value = valueAt(slot);
      if (Array.isArray(value)) {
        value.forEach((_, i) => {
          const child = { holder: value, key: i, path: `${slot.path}[${i}]` };
          found.push(child);
          stack.push(child);
        });
      } else if (isPlainObject(value)) {
        for (const key of Object.keys(value)) {
          const child = { holder: value, key, path: `${slot.path}.${key.length > 24 ? `${key.slice(0, 24)}…` : key}` };
          found.push(child);
          stack.push(child);
        }
      }
    }
    return found;
  }

  private structuralOp(wrapper: unknown[]): void {
    const { rng } = this;
    const slots = this.slots(wrapper);
    const treeFormat = ['chatgpt', 'claude', 'open-webui', 'openclaw', 'claude-code'].includes(this.seed.format);
    const heavy = rng.chance(this.options.heavyChance);
    if (heavy) {
      this.heavy = true;
      const kind = rng.weighted<string>([
        [5, 'huge'],
        [2, 'gigantic'],
        [treeFormat ? 2 : 0, 'chain'],
      ]);
      if (kind === 'huge') return this.hugeString(slots);
      if (kind === 'gigantic') return this.gigantic(slots);
      return this.longChain(wrapper);
    }
    const bias = this.options.engineBias;
    const op = rng.weighted<string>([
      [bias ? 1 : 6, 'retype'],
      [bias ? 1 : 4, 'transplant'],
      [bias ? 1 : 4, 'remove'],
      [bias ? 0 : 2, 'nullify'],
      [bias ? 12 : 3, 'whitespace'],
      [bias ? 3 : 4, 'edgeString'],
      [bias ? 3 : 3, 'duplicateId'],
      [bias ? 2 : 2, 'duplicateElement'],
      [bias ? 0 : 2, 'empty'],
      [bias ? 1 : 3, 'protoKey'],
      [bias ? 0 : 2, 'deep'],
      [bias ? 0 : 2, 'number'],
      [bias ? 0 : 1, 'badToken'],
      [treeFormat ? (bias ? 1 : 6) : 0, 'cycle'],
      [bias ? 2 : 8, 'targeted'],
      [this.seed.format === 'open-webui' && !bias ? 4 : 0, 'markup'],
      [bias ? 0 : 2, 'renameKey'],
      [bias ? 14 : 0, 'blank'],
    ]);
    const pickSlot = (filter: (value: unknown, slot: Slot) => boolean = () => true): Slot | undefined => {
      const candidates = slots.filter((slot) => filter(valueAt(slot), slot));
      return candidates.length > 0 ? rng.pick(candidates) : undefined;
    };
    const nonRoot = (_: unknown, slot: Slot) => slot.path !== '$';

    switch (op) {
      case 'retype': {
        const slot = pickSlot();
        if (!slot) return;
        const value = this.hostileValue(kindOf(valueAt(slot)));
        setAt(slot, value);
        this.ops.push(`retype ${slot.path} = ${describe(value, this.raw)}`);
        return;
      }
      case 'transplant': {
        const from = pickSlot(nonRoot);
        const to = pickSlot();
        if (!from || !to) return;
        setAt(to, structuredClone(valueAt(from)));
        this.ops.push(`transplant ${from.path} -> ${to.path}`);
        return;
      }
      case 'remove': {
        const slot = pickSlot(nonRoot);
        if (!slot) return;
        removeAt(slot);
        this.ops.push(`remove ${slot.path}`);
        return;
      }
      case 'nullify': {
        const slot = pickSlot();
        if (!slot) return;
        setAt(slot, null);
        this.ops.push(`null ${slot.path}`);
        return;
      }
      case 'whitespace': {
        const slot = pickSlot((value) => typeof value === 'string');
        if (!slot) return;
        const value = rng.chance(0.2) ? `${rng.pick(WHITESPACE)}${valueAt(slot) as string}${rng.pick(WHITESPACE)}` : rng.pick(WHITESPACE).repeat(rng.int(1, 3));
        setAt(slot, value);
        this.ops.push(`whitespace ${slot.path} = ${JSON.stringify(value)}`);
        return;
      }
      case 'edgeString': {
        const slot = pickSlot((value) => typeof value === 'string' || value === null);
        if (!slot) return;
        const value = rng.chance(0.3) ? `${valueAt(slot) as string}${rng.pick(EDGE_STRINGS)}` : rng.pick(EDGE_STRINGS);
        setAt(slot, value);
        this.ops.push(`string ${slot.path} = ${JSON.stringify(value)}`);
        return;
      }
      case 'duplicateId': {
        const ids = slots.filter((slot) => typeof slot.key === 'string' && /(^|_)(id|uuid)$|Id$|Uuid$|^current/i.test(slot.key) && typeof valueAt(slot) === 'string');
        if (ids.length < 2) return;
        const from = rng.pick(ids);
        const to = rng.pick(ids);
        setAt(to, valueAt(from));
        this.ops.push(`duplicate id ${from.path} -> ${to.path} (${JSON.stringify(valueAt(from))})`);
        return;
      }
      case 'duplicateElement': {
        const slot = pickSlot((value) => Array.isArray(value) && value.length > 0);
        if (!slot) return;
        const list = valueAt(slot) as unknown[];
        const at = rng.int(0, list.length - 1);
        const copies = rng.chance(0.2) ? rng.int(2, 10) : 1;
        for (let i = 0; i < copies; i++) list.splice(rng.int(0, list.length), 0, structuredClone(list[at]));
        this.ops.push(`duplicate ${slot.path}[${at}] x${copies}`);
        return;
      }
      case 'empty': {
        const slot = pickSlot((value) => typeof value === 'object' && value !== null);
        if (!slot) return;
        const value = Array.isArray(valueAt(slot)) ? (rng.chance(0.7) ? [] : {}) : rng.chance(0.7) ? {} : [];
        setAt(slot, value);
        this.ops.push(`empty ${slot.path} = ${JSON.stringify(value)}`);
        return;
      }
      case 'protoKey': {
        const slot = pickSlot((value) => isPlainObject(value));
        if (!slot) return;
        const target = valueAt(slot) as Record<string, unknown>;
        const key = rng.pick(PROTO_KEYS);
        const keys = Object.keys(target);
        // A clone of a sibling looks like a real entry (a message node named "__proto__"); or something hostile.
        const value = keys.length > 0 && rng.chance(0.5) ? structuredClone(target[rng.pick(keys)]) : this.hostileValue('object');
        Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
        this.ops.push(`key ${slot.path}[${JSON.stringify(key)}] = ${describe(value, this.raw)}`);
        if (rng.chance(0.5)) this.pointAt(slots, key);
        return;
      }
      case 'deep': {
        const slot = pickSlot();
        if (!slot) return;
        const depth = rng.pick([1_000, 10_000, 10_000, 50_000, 100_000]);
        const open = rng.pick(['[', '{"a":', '{"content":', '[{"type":"text","text":', '{"children":[']);
        const close = { '[': ']', '{"a":': '}', '{"content":': '}', '[{"type":"text","text":': '}]', '{"children":[': ']}' }[open]!;
        setAt(slot, this.rawToken(`${open.repeat(depth)}${rng.pick(['1', '"x"', 'null', '[]', '{}'])}${close.repeat(depth)}`));
        this.ops.push(`deep ${slot.path} = ${open} x${depth}`);
        return;
      }
      case 'number': {
        const slot = pickSlot((value) => typeof value === 'number' || typeof value === 'boolean' || value === null);
        if (!slot) return;
        const value = rng.pick(EDGE_NUMBERS);
        setAt(slot, value);
        this.ops.push(`number ${slot.path} = ${value}`);
        return;
      }
      case 'badToken': {
        const slot = pickSlot();
        if (!slot) return;
        const token = rng.pick(BAD_TOKENS);
        setAt(slot, this.rawToken(token));
        this.ops.push(`token ${slot.path} = ${token}`);
        return;
      }
      case 'cycle':
        this.cycle(wrapper);
        return;
      case 'targeted': {
        // The fields the mappers actually read (ids, links, roles, text, times, tool arguments),
        // each given the values most likely to hurt a field of its kind.
        const slot = pickSlot((_, s) => typeof s.key === 'string' && IMPORTANT_KEY.test(s.key));
        if (!slot) return;
        const value = this.targetedValue(slot.key as string, kindOf(valueAt(slot)));
        setAt(slot, value);
        this.ops.push(`targeted ${slot.path} = ${describe(value, this.raw)}`);
        return;
      }
      case 'markup': {
        // Open WebUI keeps reasoning and tool calls in <details> blocks of the text, taken apart with
        // regular expressions: blocks that never close, tags without '>', long attribute runs.
        // Only the assistant's text is taken apart; the current branch of the tree is what is read.
        const slot = pickSlot((value, s) => s.key === 'content' && typeof value === 'string' && (s.holder as Record<string, unknown>).role === 'assistant' && /history/.test(s.path));
        if (!slot) return;
        const repeat = rng.pick([1, 10, 1_000, 20_000, 100_000]);
        const piece = rng.pick([
          '<details type="reasoning">',
          '<details type="tool_calls" name="t" arguments="',
          '<details type="tool_calls" ',
          '<details type="reasoning"><summary>',
          '<details type="tool_calls" name="x" arguments="{}" result="{">x</details>',
          '<details  type="reasoning" done="true">\n> a\n</details>',
          '<summary>',
          'a="',
          '&quot;',
        ]);
        const body = rng.chance(0.3)
          ? `<details type="tool_calls" ${'a'.repeat(repeat)}${rng.pick(['', '="x"', '>'])}${rng.pick(['', '</details>'])}`
          : `${piece.repeat(repeat)}${rng.pick(['', '>', '</details>', '</summary></details>'])}`;
        if (body.length > 1_000_000) this.heavy = true;
        setAt(slot, `${rng.pick(['', 'Answer: '])}${body}`);
        this.ops.push(`markup ${slot.path} = ${JSON.stringify(body.slice(0, 40))}… (${body.length} chars)`);
        return;
      }
      case 'blank': {
        // Whitespace the importers may pass on and the engine refuses: a blank session id or message.
        // Session ids at the top of a conversation (or a JSONL header); message text of the engine's own format.
        const json = this.seed.format === 'json';
        const slot = pickSlot((value, s) => typeof value === 'string' && (/^\$(\[\d+\])?\.(session_?id|uuid|id)$/i.test(s.path) || (json && s.key === 'content')));
        if (!slot) return;
        const value = rng.pick([' ', '\t', '\n', ' \n ', '\u00a0', '\u3000', '\ufeff', '\u2028']);
        setAt(slot, value);
        this.ops.push(`blank ${slot.path} = ${JSON.stringify(value)}`);
        return;
      }
      case 'renameKey': {
        // Keys are ids in the tree formats (ChatGPT's mapping, Open WebUI's messages).
        const slot = pickSlot((_, s) => typeof s.key === 'string');
        if (!slot) return;
        const holder = slot.holder as Record<string, unknown>;
        const key = rng.pick(['', ' ', '\t', '\n', '\u0000', '\ud800', '__proto__', 'constructor', 'toString', 'a.b', '[0]', '"', 'x'.repeat(rng.int(1, 20_000))]);
        const value = holder[slot.key as string];
        delete holder[slot.key as string];
        Object.defineProperty(holder, key, { value, enumerable: true, writable: true, configurable: true });
        this.ops.push(`rename key ${slot.path} -> ${JSON.stringify(key.slice(0, 20))}${key.length > 20 ? `… (${key.length})` : ''}`);
        if (rng.chance(0.5)) this.pointAt(slots, key);
        return;
      }
    }
  }

  /** Points some id-like field of the document at `id` (a proto key, so that lookups by `in` or `[]` meet it). */
  private pointAt(slots: Slot[], id: string): void {
    const refs = slots.filter((slot) => typeof slot.key === 'string' && /parent|current|leaf/i.test(slot.key));
    if (refs.length === 0) return;
    const slot = this.rng.pick(refs);
    setAt(slot, id);
    this.ops.push(`point ${slot.path} = ${JSON.stringify(id)}`);
  }

  private targetedValue(key: string, kind: string): unknown {
    const { rng } = this;
    const bias = this.options.engineBias;
    if (TIME_KEY.test(key)) {
      return rng.weighted<() => unknown>([
        [4, () => rng.pick([8.64e15 + 1, -8.64e15 - 1, 1e20, 1e300, -1e300, -1, 0, 1.5, 5e-324, 2 ** 53 + 2])],
        [3, () => rng.pick(['+275760-09-13T00:00:00.001Z', '-271821-04-20T00:00:00.000Z', '2024-13-45T99:99:99Z', '9999-99-99', 'May 99, 2024 99:99pm', 'Smarch 1, 2024 1:00pm', 'December 31, 275760 11:59pm', '2024-05-01@99h99m99s', '275760-12-31@23h59m59s', '0000-00-00', ''])],
        [2, () => this.hostileValue(kind)],
      ])();
    }
    if (LINK_KEY.test(key)) {
      return rng.weighted<() => unknown>([
        [bias ? 6 : 3, () => rng.pick(WHITESPACE)],
        [3, () => rng.pick(['', 'missing', ...PROTO_KEYS])],
        // Ids are quoted in error messages: long runs of whitespace there must stay cheap.
        [bias ? 0 : 2, () => rng.pick([' ', '\t', ' \t', '-', 'a']).repeat(rng.pick([50_000, 200_000]))],
        [2, () => this.hostileValue(kind)],
      ])();
    }
    if (ARGUMENT_KEY.test(key)) {
      return rng.weighted<() => unknown>([
        [bias ? 0 : 3, () => this.rawToken(`${'['.repeat(20_000)}{}${']'.repeat(20_000)}`)],
        [bias ? 0 : 2, () => this.rawToken(`${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`)],
        [2, () => this.hostileValue(kind)],
      ])();
    }
    if (TEXT_KEY.test(key)) {
      return rng.weighted<() => unknown>([
        [bias ? 6 : 2, () => rng.pick(WHITESPACE)],
        [3, () => rng.pick(EDGE_STRINGS)],
        // Markup the importers take apart with regular expressions, repeated without ever closing.
        [bias ? 0 : 2, () => rng.pick(['<details type="reasoning">', '<details type="tool_calls" name="t" arguments="', '<details type="tool_calls" x', '<summary>', 'a="', '#', ' ']).repeat(rng.pick([20_000, 50_000]))],
        [bias ? 0 : 1, () => this.rawToken(`${'['.repeat(20_000)}"x"${']'.repeat(20_000)}`)],
        [2, () => this.hostileValue(kind)],
      ])();
    }
    return this.hostileValue(kind);
  }

  private hostileValue(avoid: string): unknown {
    const { rng } = this;
    for (let attempt = 0; attempt < 8; attempt++) {
      const value = rng.weighted<() => unknown>([
        [3, () => rng.pick(EDGE_NUMBERS)],
        [2, () => rng.chance(0.5)],
        [2, () => null],
        [4, () => rng.pick(EDGE_STRINGS)],
        [2, () => rng.pick(WHITESPACE)],
        [1, () => 'x'.repeat(rng.int(1_000, 100_000))],
        [2, () => ({})],
        [2, () => []],
        [1, () => [null, 1, 'x', {}, []]],
        [1, () => ({ type: 'text', text: 'x', role: 'user', content: 'y', id: 'z', parent: 'z' })],
        [1, () => Array.from({ length: rng.int(1, 2_000) }, () => ({}))],
        [1, () => protoObject(rng.pick(PROTO_KEYS))],
      ])();
      if (kindOf(value) !== avoid) return value;
    }
    return null;
  }

  private hugeString(slots: Slot[]): void {
    const { rng } = this;
    const important = slots.filter((slot) => typeof slot.key === 'string' && IMPORTANT_KEY.test(slot.key));
    const strings = slots.filter((slot) => typeof valueAt(slot) === 'string' || typeof slot.key === 'string');
    const pool = important.length > 0 && rng.chance(0.6) ? important : strings;
    const slot = pool.length > 0 ? rng.pick(pool) : slots[0]!;
    // Whitespace and the markup the importers parse with regular expressions are the likeliest to hurt.
    const unit = rng.chance(0.5) ? rng.pick([' ', ' ', '\t', '#', '<details type="reasoning">', '<details type="tool_calls" name="t" arguments="', 'a']) : rng.pick(HUGE_UNITS);
    // Several MB once written; units that JSON escapes (control characters) count six times.
    const megabytes = rng.pick([1, 2, 4]);
    const escapes = /[\u0000-\u001f"\\]/.test(unit) ? 6 : 1;
    const count = Math.ceil((megabytes * 1024 * 1024) / escapes / Buffer.byteLength(unit));
    const prefix = rng.pick(['', 'x', '# a', 'User: ']);
    const value = `${prefix}${unit.repeat(count)}${rng.pick(['', 'b', '\u0000'])}`;
    setAt(slot, value);
    this.ops.push(`huge ${slot.path} = ${JSON.stringify(prefix)} + ${JSON.stringify(unit)} x${count}`);
  }

  private gigantic(slots: Slot[]): void {
    const { rng } = this;
    const arrays = slots.filter((slot) => Array.isArray(valueAt(slot)) || isPlainObject(valueAt(slot)));
    const slot = arrays.length > 0 ? rng.pick(arrays) : slots[0]!;
    const count = rng.pick([10_000, 100_000, 300_000]);
    const current = valueAt(slot);
    const asObject = isPlainObject(current) && rng.chance(0.5);
    // An array of empty things, or of copies of a real element (a content block, a message).
    const sample = Array.isArray(current) && current.length > 0 ? JSON.stringify(rng.pick(current)) : undefined;
    const element = sample !== undefined && sample.length < 2_000 && rng.chance(0.5) ? sample : rng.pick(['{}', '[]', 'null', '""', '{"role":"user"}']);
    const body = asObject
      ? `{${Array.from({ length: count }, (_, i) => `"k${i}":{}`).join(',')}}`
      : `[${element.concat(',').repeat(count - 1)}${element}]`;
    setAt(slot, this.rawToken(body));
    this.ops.push(`gigantic ${slot.path} = ${asObject ? 'object' : `array of ${element.slice(0, 40)}`} x${count}`);
  }

  // ---- tree formats: cycles and long chains --------------------------------------------------

  /** The tree of the document: a list of nodes, how to read and set a node's id and parent, and where the leaf is named. */
  private treeOf(wrapper: unknown[]): Tree | undefined {
    const doc = wrapper[0];
    const { rng } = this;
    switch (this.seed.format) {
      case 'chatgpt': {
        const conversation = rng.pick(conversationsOf(doc).filter((c) => isPlainObject(c.mapping)).concat([{}]));
        if (!isPlainObject(conversation.mapping)) return undefined;
        const mapping = conversation.mapping;
        return {
          ids: () => Object.keys(mapping).filter((id) => isPlainObject(mapping[id])),
          setParent: (id, parent) => void ((mapping[id] as Record<string, unknown>).parent = parent),
          setLeaf: (id) => (id === undefined ? delete conversation.current_node : void (conversation.current_node = id)),
          setChildren: (id, children) => void ((mapping[id] as Record<string, unknown>).children = children),
          add: (id, parent, i) => {
            mapping[id] = { id, parent, children: [], message: { id, author: { role: i % 2 ? 'assistant' : 'user' }, content: { content_type: 'text', parts: [`m${i}`] } } };
          },
          label: 'mapping',
        };
      }
      case 'open-webui': {
        const chats = conversationsOf(doc)
          .map((c) => c.chat)
          .filter((chat): chat is Record<string, unknown> => isPlainObject(chat) && isPlainObject(chat.history) && isPlainObject(chat.history.messages));
        if (chats.length === 0) return undefined;
        const history = rng.pick(chats).history as Record<string, unknown>;
        const messages = history.messages as Record<string, unknown>;
        return {
          ids: () => Object.keys(messages).filter((id) => isPlainObject(messages[id])),
          setParent: (id, parent) => void ((messages[id] as Record<string, unknown>).parentId = parent),
          setLeaf: (id) => (id === undefined ? delete history.currentId : void (history.currentId = id)),
          setChildren: (id, children) => void ((messages[id] as Record<string, unknown>).childrenIds = children),
          add: (id, parent, i) => {
            messages[id] = { id, parentId: parent, childrenIds: [], role: i % 2 ? 'assistant' : 'user', content: `m${i}` };
          },
          label: 'history',
        };
      }
      case 'claude': {
        const conversation = rng.pick(conversationsOf(doc).filter((c) => Array.isArray(c.chat_messages)).concat([{}]));
        if (!Array.isArray(conversation.chat_messages)) return undefined;
        const list = conversation.chat_messages as unknown[];
        const byId = (id: string) => list.find((m): m is Record<string, unknown> => isPlainObject(m) && m.uuid === id);
        return {
          ids: () => list.flatMap((m) => (isPlainObject(m) && typeof m.uuid === 'string' ? [m.uuid] : [])),
          setParent: (id, parent) => void (byId(id) !== undefined && (byId(id)!.parent_message_uuid = parent)),
          setLeaf: (id) => (id === undefined ? delete conversation.current_leaf_message_uuid : void (conversation.current_leaf_message_uuid = id)),
          add: (id, parent, i) => void list.push({ uuid: id, parent_message_uuid: parent ?? '00000000-0000-4000-8000-000000000000', sender: i % 2 ? 'assistant' : 'human', text: `m${i}` }),
          label: 'chat_messages',
        };
      }
      case 'openclaw':
      case 'claude-code': {
        if (!Array.isArray(doc)) return undefined;
        const lines = doc as unknown[];
        const idKey = this.seed.format === 'openclaw' ? 'id' : 'uuid';
        const parentKey = this.seed.format === 'openclaw' ? 'parentId' : rng.chance(0.8) ? 'parentUuid' : 'logicalParentUuid';
        const byId = (id: string) => lines.find((m): m is Record<string, unknown> => isPlainObject(m) && m[idKey] === id && m.type !== 'session');
        return {
          ids: () => lines.flatMap((m) => (isPlainObject(m) && typeof m[idKey] === 'string' && m.type !== 'session' ? [m[idKey] as string] : [])),
          setParent: (id, parent) => void (byId(id) !== undefined && (byId(id)![parentKey] = parent)),
          // The leaf of a JSONL tree is its last line: move the chosen line to the end.
          setLeaf: (id) => {
            const line = id === undefined ? undefined : byId(id);
            if (line) lines.push(lines.splice(lines.indexOf(line), 1)[0]);
          },
          add: (id, parent, i) =>
            void lines.push(
              this.seed.format === 'openclaw'
                ? { type: 'message', id, parentId: parent, message: { role: i % 2 ? 'assistant' : 'user', content: `m${i}` } }
                : { type: i % 2 ? 'assistant' : 'user', uuid: id, parentUuid: parent, sessionId: 'chain', message: { role: i % 2 ? 'assistant' : 'user', content: `m${i}` } },
            ),
          label: 'lines',
        };
      }
      default:
        return undefined;
    }
  }

  private cycle(wrapper: unknown[]): void {
    const { rng } = this;
    const tree = this.treeOf(wrapper);
    if (!tree) return;
    const ids = tree.ids();
    if (ids.length === 0) return;
    const variant = rng.weighted<string>([
      [4, 'ring'],
      [2, 'self'],
      [tree.setChildren ? 2 : 0, 'children'],
      [1, 'rootless'],
      [2, 'dangling'],
      [1, 'protoLeaf'],
    ]);
    switch (variant) {
      case 'ring': {
        const size = Math.min(ids.length, rng.int(2, 5));
        const ring = shuffled(rng, ids).slice(0, size);
        ring.forEach((id, i) => tree.setParent(id, ring[(i + 1) % ring.length]!));
        const leaf = rng.chance(0.8) ? rng.pick(ring) : undefined;
        tree.setLeaf(leaf);
        this.ops.push(`cycle ${tree.label}: ${ring.map((id) => JSON.stringify(id)).join(' -> ')} -> back, leaf ${JSON.stringify(leaf)}`);
        return;
      }
      case 'self': {
        const id = rng.pick(ids);
        tree.setParent(id, id);
        tree.setLeaf(id);
        this.ops.push(`cycle ${tree.label}: ${JSON.stringify(id)} is its own parent and the leaf`);
        return;
      }
      case 'children': {
        // No leaf named: ChatGPT and Open WebUI then walk children from the root.
        const [a, b] = [rng.pick(ids), rng.pick(ids)];
        tree.setChildren!(a, [b, a]);
        tree.setChildren!(b, [a]);
        tree.setLeaf(undefined);
        this.ops.push(`cycle ${tree.label}: children ${JSON.stringify(a)} <-> ${JSON.stringify(b)}, no leaf`);
        return;
      }
      case 'rootless': {
        ids.forEach((id, i) => tree.setParent(id, ids[(i + 1) % ids.length]!));
        tree.setLeaf(undefined);
        this.ops.push(`cycle ${tree.label}: every node has a parent (no root), no leaf`);
        return;
      }
      case 'dangling': {
        const id = rng.pick(ids);
        const parent = rng.pick(['missing', '', ...PROTO_KEYS]);
        tree.setParent(id, parent);
        if (rng.chance(0.5)) tree.setLeaf(id);
        this.ops.push(`dangling ${tree.label}: parent of ${JSON.stringify(id)} = ${JSON.stringify(parent)}`);
        return;
      }
      case 'protoLeaf': {
        const leaf = rng.pick(PROTO_KEYS);
        tree.setLeaf(leaf);
        this.ops.push(`leaf ${tree.label} = ${JSON.stringify(leaf)}`);
        return;
      }
    }
  }

  /** A tree thousands of nodes deep: walks must be iterative and linear. */
  private longChain(wrapper: unknown[]): void {
    const tree = this.treeOf(wrapper);
    if (!tree) return;
    const length = this.rng.pick([5_000, 20_000, 50_000]);
    let parent: string | null = null;
    for (let i = 0; i < length; i++) {
      const id = `chain-${i}`;
      tree.add(id, parent, i);
      parent = id;
    }
    const cyclic = this.rng.chance(0.3);
    if (cyclic) tree.setParent('chain-0', parent!);
    tree.setLeaf(parent!);
    this.ops.push(`chain ${tree.label} of ${length}${cyclic ? ', closed into a cycle' : ''}`);
  }

  // ---- JSONL lines ---------------------------------------------------------------------------

  private lineOp(wrapper: unknown[]): void {
    const { rng } = this;
    const lines = wrapper[0];
    if (!Array.isArray(lines)) return;
    const op = rng.pick(['dropHeader', 'doubleHeader', 'nonObject', 'foreign', 'shuffle', 'blank', 'manyEmpty']);
    switch (op) {
      case 'dropHeader':
        lines.shift();
        break;
      case 'doubleHeader':
        if (lines.length > 0) lines.splice(rng.int(0, lines.length), 0, structuredClone(lines[0]));
        break;
      case 'nonObject':
        lines.splice(rng.int(0, lines.length), 0, rng.pick<unknown>([[1, 2], 'line', 42, null, true, []]));
        break;
      case 'foreign': {
        const other = rng.pick(['openclaw', 'sillytavern', 'claude-code'] as const);
        const seed = rng.pick(seedsOf(other));
        if (seed.shape === 'jsonl' && seed.lines.length > 0) lines.splice(rng.int(0, lines.length), 0, structuredClone(rng.pick(seed.lines)));
        break;
      }
      case 'shuffle':
        lines.splice(0, lines.length, ...shuffled(rng, lines));
        break;
      case 'blank':
        lines.splice(rng.int(0, lines.length), 0, this.rawToken(rng.pick(['', ' ', '\t', '\r'])));
        break;
      case 'manyEmpty':
        lines.splice(rng.int(1, Math.max(1, lines.length)), 0, ...Array.from({ length: rng.int(1, 5_000) }, () => ({})));
        break;
    }
    this.ops.push(`lines ${op}`);
  }

  // ---- Markdown ------------------------------------------------------------------------------

  private mutateMarkdown(text: string): string {
    const { rng } = this;
    const lines = text.split('\n');
    const count = rng.int(1, 4);
    for (let i = 0; i < count; i++) {
      if (rng.chance(this.options.heavyChance)) {
        this.heavy = true;
        const unit = rng.pick(['#', ' ', '-', '- ', '*', '`', 'a', '>', '**', 'User: ', '\t']);
        const repeat = Math.ceil((rng.pick([1, 2, 4]) * 1024 * 1024) / unit.length);
        const line = `${rng.pick(['', '# a', '# ', '### ', '### User', '**User', 'User', '**', 'User:', '- '])}${unit.repeat(repeat)}${rng.pick(['', 'b', '#', ' x', ':'])}`;
        const at = rng.chance(0.5) ? 0 : rng.int(0, lines.length);
        lines.splice(at, 0, line);
        this.ops.push(`huge line at ${at}: ${JSON.stringify(line.slice(0, 8))} + ${JSON.stringify(unit)} x${repeat}`);
        continue;
      }
      const op = rng.pick(['insert', 'insert', 'insert', 'delete', 'duplicate', 'swap', 'replaceAll']);
      const at = rng.int(0, lines.length);
      switch (op) {
        case 'insert': {
          const line = rng.pick([
            'User: x',
            'user:',
            'USER：全角',
            '**Assistant:** y',
            '**assistant**: z',
            '**System**',
            '### User',
            '###### Assistant:',
            '####### User',
            '# Title',
            '#',
            '```',
            '~~~',
            '   ```js',
            '---',
            '* * *',
            '___',
            '',
            '   ',
            '\t',
            '用户：你好',
            '助手:',
            '系统：',
            'Human:',
            'Assistant : spaced',
            'User:\u0000',
            '\u0001\u0002',
            '\ufeffUser: bom',
            'User: \ud800',
            'Assistant: <details type="reasoning">x</details>',
            '> User: quoted',
            'User: ' + 'word '.repeat(rng.int(1, 2_000)),
          ]);
          lines.splice(at, 0, line);
          this.ops.push(`insert line ${at}: ${JSON.stringify(line.slice(0, 40))}`);
          break;
        }
        case 'delete':
          lines.splice(at, 1);
          this.ops.push(`delete line ${at}`);
          break;
        case 'duplicate':
          lines.splice(at, 0, ...lines.slice(at, at + rng.int(1, 5)));
          this.ops.push(`duplicate lines at ${at}`);
          break;
        case 'swap': {
          const other = rng.int(0, Math.max(0, lines.length - 1));
          [lines[at], lines[other]] = [lines[other] ?? '', lines[at] ?? ''];
          this.ops.push(`swap lines ${at} ${other}`);
          break;
        }
        case 'replaceAll': {
          const replacement = rng.pick(['', '\t', '\r', 'User:', '```']);
          for (let k = 0; k < lines.length; k++) if (rng.chance(0.5)) lines[k] = replacement;
          this.ops.push(`replace lines with ${JSON.stringify(replacement)}`);
          break;
        }
      }
    }
    return lines.join(rng.chance(0.2) ? '\r\n' : '\n');
  }

  // ---- bytes ---------------------------------------------------------------------------------

  private byteOp(bytes: Buffer): Buffer {
    const { rng } = this;
    const at = () => rng.int(0, bytes.length);
    const op = rng.weighted<string>([
      [4, 'truncate'],
      [3, 'flip'],
      [3, 'utf8'],
      [2, 'control'],
      [2, 'bom'],
      [1, 'crlf'],
      [1, 'append'],
      [1, 'pad'],
    ]);
    switch (op) {
      case 'truncate': {
        const cut = rng.chance(0.3) ? Math.max(0, bytes.length - rng.int(1, 4)) : at();
        this.ops.push(`truncate at byte ${cut} of ${bytes.length}`);
        return bytes.subarray(0, cut);
      }
      case 'flip': {
        const copy = Buffer.from(bytes);
        const flips = rng.int(1, 8);
        const where: number[] = [];
        for (let i = 0; i < flips && copy.length > 0; i++) {
          const pos = rng.int(0, copy.length - 1);
          copy[pos] = copy[pos]! ^ rng.int(1, 255);
          where.push(pos);
        }
        this.ops.push(`flip bytes ${where.join(',')}`);
        return copy;
      }
      case 'utf8': {
        const sequence = rng.pick([[0xff], [0xfe], [0xc0, 0x80], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe0, 0x80, 0xaf], [0xef, 0xbf, 0xbe]]);
        const pos = at();
        this.ops.push(`bytes ${sequence.map((b) => b.toString(16)).join(' ')} at ${pos}`);
        return Buffer.concat([bytes.subarray(0, pos), Buffer.from(sequence), bytes.subarray(pos)]);
      }
      case 'control': {
        const char = rng.pick([0x00, 0x01, 0x07, 0x08, 0x0b, 0x0c, 0x1a, 0x1b, 0x1f, 0x7f, 0x0d]);
        const pos = at();
        const count = rng.chance(0.2) ? rng.int(2, 5_000) : 1;
        this.ops.push(`control byte ${char.toString(16)} x${count} at ${pos}`);
        return Buffer.concat([bytes.subarray(0, pos), Buffer.alloc(count, char), bytes.subarray(pos)]);
      }
      case 'bom': {
        const bom = rng.pick([[0xef, 0xbb, 0xbf], [0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], [0xff, 0xfe], [0xfe, 0xff], [0xef, 0xbb]]);
        const pos = rng.chance(0.7) ? 0 : Math.max(0, bytes.indexOf(0x0a) + 1);
        this.ops.push(`BOM ${bom.map((b) => b.toString(16)).join(' ')} at ${pos}`);
        return Buffer.concat([bytes.subarray(0, pos), Buffer.from(bom), bytes.subarray(pos)]);
      }
      case 'crlf': {
        const ending = rng.pick(['\r\n', '\r', '\n\n', '\u2028']);
        this.ops.push(`line endings ${JSON.stringify(ending)}`);
        return Buffer.from(bytes.toString('latin1').split('\n').join(ending === '\u2028' ? '\u00e2\u0080\u00a8' : ending), 'latin1');
      }
      case 'append': {
        const tail = rng.pick(['}', ']', ',', '\n{"a":1}', '\n[1]', ' garbage', '\u0000\u0000', '\n{"type":"session","id":"again"}', '{}', '\n\n\n']);
        this.ops.push(`append ${JSON.stringify(tail)}`);
        return Buffer.concat([bytes, Buffer.from(tail)]);
      }
      default: {
        const pad = rng.pick([' ', '\n', '\t', '\r\n', '\f', '\v']).repeat(rng.int(1, 100));
        this.ops.push(`pad ${JSON.stringify(pad.slice(0, 4))} x${pad.length}`);
        return rng.chance(0.5) ? Buffer.concat([Buffer.from(pad), bytes]) : Buffer.concat([bytes, Buffer.from(pad)]);
      }
    }
  }

  /** A file that has nothing left of the seed. */
  private wholeFileCase(): Buffer {
    const { rng } = this;
    const kind = rng.weighted<string>([
      [3, 'empty'],
      [2, 'whitespace'],
      [1, 'bom'],
      [3, 'trivial'],
      [2, 'giganticEmpty'],
      [2, 'deep'],
      [1, 'emptyLines'],
      [1, 'random'],
      [1, 'utf16'],
    ]);
    this.ops.push(`whole file: ${kind}`);
    switch (kind) {
      case 'empty':
        return Buffer.alloc(0);
      case 'whitespace':
        return Buffer.from(rng.pick([' ', '\n', '\r\n', '\t \n', '\n'.repeat(10_000)]));
      case 'bom':
        return Buffer.from(rng.pick(['\ufeff', '\ufeff\n', '\ufeff[]', '\ufeff{}']));
      case 'trivial':
        return Buffer.from(rng.pick(['[]', '{}', 'null', '0', '""', '[[]]', '[{}]', '[null]', 'true', '{"messages":[]}', '{"session_id":"s","messages":[]}', '[{"mapping":{}}]', '{"chat_messages":[]}', '{"type":"session"}', '{"chat":{"history":{}}}']));
      case 'giganticEmpty': {
        this.heavy = true;
        const count = rng.pick([100_000, 500_000]);
        return Buffer.from(`[${'{},'.repeat(count - 1)}{}]`);
      }
      case 'deep': {
        const depth = rng.pick([10_000, 100_000]);
        return Buffer.from(rng.chance(0.5) ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
      }
      case 'emptyLines':
        this.heavy = true;
        return Buffer.from('{}\n'.repeat(rng.pick([1_000, 100_000])));
      case 'random':
        return Buffer.from(Array.from({ length: rng.int(1, 4_096) }, () => rng.int(0, 255)));
      default: {
        const seed = this.seed;
        const text = seed.shape === 'text' ? seed.text : seed.shape === 'document' ? JSON.stringify(seed.value) : seed.lines.map((line) => JSON.stringify(line)).join('\n');
        return Buffer.concat([rng.chance(0.5) ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text, 'utf16le')]);
      }
    }
  }
}

// ---- ZIP archives ------------------------------------------------------------------------------

const ZIP_NAMES = [
  'conversations.json',
  'chat.json',
  'session.jsonl',
  'a/b/chat.jsonl',
  'notes.md',
  'notes.txt',
  '.hidden.json',
  '__MACOSX/conversations.json',
  'sessions.json',
  'user.json',
  'dir/',
  'image.png',
  'inner.zip',
  '../../escape.json',
  '/absolute.json',
  'C:\\windows\\chat.json',
  'new\nline.json',
  'tab\tname.jsonl',
  '对话.txt',
  `${'long'.repeat(100)}.json`,
  'dup.json',
  'dup.json',
  'x.jsonl.reset.2026-01-01',
];

function zipCase(rng: Rng, index: number, options: CaseOptions): Omit<FuzzCase, 'format' | 'index' | 'seed' | 'include' | 'streaming' | 'heavy'> & { heavy: boolean } {
  const ops: string[] = [];
  const count = rng.weighted<number>([
    [1, 0],
    [6, 1],
    [3, 2],
    [2, 4],
  ]);
  const entries: ZipEntrySpec[] = [];
  for (let i = 0; i < count; i++) {
    const format = rng.pick(['json', 'chatgpt', 'claude', 'openclaw', 'open-webui', 'sillytavern', 'claude-code', 'markdown'] as const);
    const inner = rng.chance(0.3)
      ? { bytes: Buffer.from(rng.pick(seedsOf(format)).shape === 'text' ? 'User: hi\nAssistant: hello\n' : '{"session_id":"zip","messages":[{"role":"user","content":"hi"}]}'), ops: ['valid'] }
      : generateCase(format, index, rng.next(), { heavyChance: 0, engineBias: options.engineBias ?? false });
    const name = rng.chance(0.6) ? rng.pick(ZIP_NAMES) : `${format}-${i}${format === 'markdown' ? '.md' : ['openclaw', 'sillytavern', 'claude-code'].includes(format) ? '.jsonl' : '.json'}`;
    const method = rng.chance(0.3) ? ('store' as const) : ('deflate' as const);
    const lie = rng.chance(0.1) ? rng.pick([0, 1, Math.max(0, inner.bytes.length - 1), inner.bytes.length + 1, 0xffffffff, 2 ** 31]) : undefined;
    const data = name.endsWith('.zip') ? buildZip([{ name: 'nested.json', data: inner.bytes }]) : inner.bytes;
    entries.push({ name, data, method, ...(lie !== undefined ? { declaredSize: lie } : {}) });
    ops.push(`entry ${JSON.stringify(name)} (${method}${lie !== undefined ? `, declares ${lie} bytes` : ''}): ${format} ${inner.ops.join('; ')}`);
  }
  let bytes = buildZip(entries);
  const damage = rng.weighted<string>([
    [6, 'none'],
    [2, 'flip'],
    [1, 'truncate'],
    [1, 'prefix'],
  ]);
  if (damage === 'flip') {
    bytes = Buffer.from(bytes);
    const where: number[] = [];
    for (let i = rng.int(1, 6); i > 0; i--) {
      const pos = rng.int(0, bytes.length - 1);
      bytes[pos] = bytes[pos]! ^ rng.int(1, 255);
      where.push(pos);
    }
    ops.push(`flip archive bytes ${where.join(',')}`);
  } else if (damage === 'truncate') {
    const cut = rng.int(4, bytes.length);
    ops.push(`truncate archive at ${cut} of ${bytes.length}`);
    bytes = bytes.subarray(0, cut);
  } else if (damage === 'prefix') {
    bytes = Buffer.concat([Buffer.from('PK\u0003\u0004garbage'), bytes]);
    ops.push('garbage before the archive');
  }
  return { fileName: 'export.zip', bytes, ops, heavy: false };
}

// ---- helpers -----------------------------------------------------------------------------------

interface Tree {
  ids(): string[];
  setParent(id: string, parent: string | null): void;
  /** Names the leaf the walk starts from (undefined: none named). */
  setLeaf(id: string | undefined): void;
  setChildren?(id: string, children: string[]): void;
  add(id: string, parent: string | null, index: number): void;
  label: string;
}

function conversationsOf(doc: unknown): Array<Record<string, unknown>> {
  const list = Array.isArray(doc) ? doc : [doc];
  return list.filter(isPlainObject);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueAt(slot: Slot): unknown {
  return (slot.holder as Record<string | number, unknown>)[slot.key];
}

function setAt(slot: Slot, value: unknown): void {
  Object.defineProperty(slot.holder, slot.key, { value, enumerable: true, writable: true, configurable: true });
}

function removeAt(slot: Slot): void {
  if (Array.isArray(slot.holder)) slot.holder.splice(slot.key as number, 1);
  else delete slot.holder[slot.key as string];
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function protoObject(key: string): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  Object.defineProperty(object, key, { value: { polluted: true, role: 'user', content: 'x' }, enumerable: true, writable: true, configurable: true });
  return object;
}

function shuffled<T>(rng: Rng, items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

function describe(value: unknown, raw: Map<string, string>): string {
  if (typeof value === 'string') {
    const fragment = raw.get(value);
    if (fragment !== undefined) return `raw ${JSON.stringify(fragment.slice(0, 24))}…`;
    return value.length > 40 ? `string of ${value.length} (${JSON.stringify(value.slice(0, 12))}…)` : JSON.stringify(value);
  }
  if (Array.isArray(value)) return value.length > 8 ? `array of ${value.length}` : (JSON.stringify(value) ?? 'array');
  if (isPlainObject(value)) {
    const text = JSON.stringify(value) ?? '{}';
    return text.length > 60 ? `${text.slice(0, 60)}…` : text;
  }
  return String(value);
}
