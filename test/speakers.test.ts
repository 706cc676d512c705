import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { MessageInput, SessionInput } from '../shared/domain.js';
import { chunkDialogue, type ChunkableMessage } from '../electron/engine/save/chunker.js';
import { normalizeSession } from '../electron/engine/save/normalize.js';
import { engineTestBed, hashEngineTestBed } from './helpers/engine.js';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';

const msg = (msgId: string, role: ChunkableMessage['role'], content: string, speaker?: string): ChunkableMessage => ({ msgId, role, content, ...(speaker ? { speaker } : {}) });
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe("a speaker's name in the chunk text", () => {
  it('shows the name in place of the role, and the role where a message has no name', () => {
    const [chunk] = chunkDialogue('s', [msg('1', 'user', 'I went to the support group yesterday.', 'Caroline'), msg('2', 'assistant', 'How was it?')], { maxTokens: 128 });
    expect(chunk!.text).toBe('Caroline: I went to the support group yesterday.\nassistant: How was it?');
  });

  it('chunks messages without names exactly as before: the same ids, texts and text hashes', () => {
    const messages = Array.from({ length: 12 }, (_, i) => msg(`m${i}`, i % 2 ? 'assistant' : 'user', `garden tomatoes watering message ${i} `.repeat(1 + (i % 5))));
    const chunks = chunkDialogue('s', messages, { maxTokens: 64 });
    for (const chunk of chunks) {
      expect(chunk.text).toBe(chunk.segments.map((s) => `${s.role}: ${s.text}`).join('\n'));
      expect(chunk.textHash).toBe(sha256(chunk.text));
    }
  });

  it('keeps no name that is only a role word, nor an empty one, and puts a name on one line', () => {
    const input: SessionInput = {
      sessionId: 's',
      messages: [
        { role: 'user', content: 'a', speaker: 'User' },
        { role: 'assistant', content: 'b', speaker: ' ASSISTANT ' },
        { role: 'user', content: 'c', speaker: '  ' },
        { role: 'user', content: 'd', speaker: 'Mary\nAnn\u0000' },
      ],
    };
    expect(normalizeSession(input).session.messages.map((m) => m.speaker)).toEqual([undefined, undefined, undefined, 'Mary Ann']);
  });

  it("hashes a message without a name as stores saved before names were kept, and a name into a named message's hash", () => {
    const [plain, named] = normalizeSession({ sessionId: 's', messages: [{ role: 'user', content: 'hello' }, { msgId: 'n', role: 'user', content: 'hello', speaker: 'Caroline' }] }).session.messages;
    expect(plain!.contentHash).toBe(sha256('user\u0000hello'));
    expect(named!.contentHash).not.toBe(plain!.contentHash);
  });
});

describe('saving messages with names', () => {
  const bed = hashEngineTestBed();
  const turns: MessageInput[] = [
    { msgId: 'D1:1', role: 'user', content: 'I went to a pottery class on Saturday.' },
    { msgId: 'D1:2', role: 'assistant', content: 'That sounds fun! What did you make?' },
    { msgId: 'D1:3', role: 'user', content: 'A bowl for my cat, slightly crooked.' },
  ];
  const named = (names: string[]): SessionInput => ({ sessionId: 'chat', messages: turns.map((m, i) => ({ ...m, speaker: names[i % 2]! })) });

  it('stores the names in the chunk text and with the messages', async () => {
    const engine = await bed.open(bed.dataDir());
    try {
      await engine.save(named(['Caroline', 'Melanie']));
      const detail = await engine.showSession('chat');
      expect(detail.chunks.map((c) => c.text).join('\n')).toBe(
        'Caroline: I went to a pottery class on Saturday.\nMelanie: That sounds fun! What did you make?\nCaroline: A bowl for my cat, slightly crooked.',
      );
      expect(detail.messages.map((m) => m.speaker)).toEqual(['Caroline', 'Melanie', 'Caroline']);
    } finally {
      await engine.close();
    }
  });

  it('a transcript saved without names and saved again with them is all unchanged; a renamed speaker is a change; overwrite stores the names', async () => {
    const engine = await bed.open(bed.dataDir());
    try {
      await engine.save({ sessionId: 'chat', messages: turns });
      const before = await engine.showSession('chat');
      const again = await engine.save(named(['Caroline', 'Melanie']));
      expect(again).toMatchObject({ total: 3, new: 0, updated: 0, skipped: 3, chunksWritten: 0 });
      expect((await engine.showSession('chat')).chunks).toEqual(before.chunks);

      const overwritten = await engine.save(named(['Caroline', 'Melanie']), { mode: 'overwrite' });
      expect(overwritten.chunksWritten).toBeGreaterThan(0);
      expect((await engine.showSession('chat')).chunks[0]!.text).toMatch(/^Caroline: I went/);
      expect(await engine.save(named(['Caroline', 'Melanie']))).toMatchObject({ new: 0, updated: 0 });

      const renamed = await engine.save(named(['Caroline', 'Mel']));
      expect(renamed).toMatchObject({ new: 0, updated: 1, skipped: 2 });
      expect((await engine.showSession('chat')).chunks.map((c) => c.text).join('\n')).toContain('Mel: That sounds fun!');
    } finally {
      await engine.close();
    }
  });

  it('redacting a stored session keeps the names', async () => {
    const engine = await bed.open(bed.dataDir());
    try {
      const key = 'AKIA' + 'QWERTYUIOPASDFGH'.split('').reverse().join('');
      await engine.save({ sessionId: 'chat', messages: [{ ...turns[0]!, speaker: 'Caroline' }, { ...turns[1]!, content: `My key is ${key}`, speaker: 'Melanie' }] }, { redact: false });
      await engine.redact();
      const detail = await engine.showSession('chat');
      expect(detail.messages.map((m) => [m.speaker, m.content.includes(key)])).toEqual([
        ['Caroline', false],
        ['Melanie', false],
      ]);
      expect(detail.chunks.map((c) => c.text).join('\n')).toMatch(/^Caroline: I went to a pottery class on Saturday\.\nMelanie: My key is \[REDACTED:/);
    } finally {
      await engine.close();
    }
  });

  it('forgetting one message keeps the names of the others', async () => {
    const engine = await bed.open(bed.dataDir());
    try {
      await engine.save(named(['Caroline', 'Melanie']));
      await engine.forgetMessages('chat', ['D1:2']);
      const detail = await engine.showSession('chat');
      expect(detail.messages.map((m) => [m.msgId, m.speaker])).toEqual([
        ['D1:1', 'Caroline'],
        ['D1:3', 'Caroline'],
      ]);
      expect(detail.chunks.map((c) => c.text).join('\n')).toBe('Caroline: I went to a pottery class on Saturday.\nCaroline: A bowl for my cat, slightly crooked.');
    } finally {
      await engine.close();
    }
  });
});

describe('searching a chat between people', () => {
  const bed = engineTestBed();

  // Two friends who both paint: only the name tells whose painting a question asks about.
  const said: Array<[string, string]> = [
    ['Caroline', 'I painted a portrait of my grandmother.'],
    ['Melanie', 'I painted a bowl of lemons.'],
    ['Caroline', 'I painted my bedroom wall blue.'],
    ['Melanie', 'I joined a choir this month, we sing on Thursdays.'],
    ['Caroline', 'I adopted a puppy named Oscar from the shelter.'],
    ['Melanie', 'My kids want to go camping at the beach this summer.'],
  ];

  it('finds the message of the person a question names', async () => {
    const engine = await bed.open(bed.dataDir());
    try {
      // One session per day, as friends chat: each message is a chunk of its own.
      for (const [i, [speaker, content]] of said.entries()) {
        await engine.save({ sessionId: `day-${i}`, messages: [{ msgId: `m${i}`, role: speaker === 'Caroline' ? 'user' : 'assistant', speaker, content, timestamp: `2024-05-0${i + 1}T10:00:00Z` }] });
      }
      const hits = await engine.search('What did Melanie paint?', { limit: 3 });
      expect(hits[0]!.msgIds).toEqual(['m1']);
    } finally {
      await engine.close();
    }
  });

  it("a named person's message that is a result of its own comes with the start of the other's reply, under the replier's name", async () => {
    const engine = await bed.open(bed.dataDir());
    try {
      const plan = [
        'I am planning the move of our bakery to the new shop on Harbour Street this spring.',
        'The old ovens weigh about two tonnes each and the landlord wants them out by the end of April.',
        'We are three bakers, and only Tomas knows how to take the big oven apart safely.',
        'We cannot close for more than two days, since the cafe orders come in every morning.',
        'The council wants the new shop to pass its fire inspection before we bake anything there.',
        'In which order would you do the move so that we lose as little trade as possible?',
      ];
      const reply = [
        'Book the fire inspection first, since nothing can be baked there before it passes.',
        'Move the small ovens and the stock on a Sunday, and bake at the old shop meanwhile.',
        'Let Tomas take the big oven apart on the Monday and rebuild it by the Tuesday evening.',
        'Tell the cafes a week ahead which two mornings their orders come from the new shop.',
      ];
      await engine.save({
        sessionId: 'bakery',
        messages: [
          { msgId: 'plan', role: 'user', speaker: 'Priya', content: plan.join(' '), timestamp: '2024-04-08T10:00:00Z' },
          { msgId: 'steps', role: 'assistant', speaker: 'Sam', content: reply.join(' '), timestamp: '2024-04-08T10:01:00Z' },
        ],
      });
      const hits = await engine.search('How much do the old ovens weigh?', { limit: 3 });
      const request = hits.find((h) => h.msgIds[0] === 'plan');
      expect(request, JSON.stringify(hits)).toBeDefined();
      expect(request!.msgIds).toEqual(['plan', 'steps']);
      expect(request!.text).toContain('\nSam: Book the fire inspection first');
    } finally {
      await engine.close();
    }
  });

});

describe("the question's vector and the store's speakers", () => {
  const bed = hashEngineTestBed();
  /** The hashing stand-in, keeping the texts it is asked to embed. */
  class RecordingEmbedder extends HashEmbedder {
    texts: string[] = [];
    override embed(texts: string[]): Promise<Float32Array[]> {
      this.texts.push(...texts);
      return super.embed(texts);
    }
  }

  it("looks without the names of the store's speakers, and with every other name", async () => {
    const embedder = new RecordingEmbedder();
    const engine = await bed.open(bed.dataDir(), { embedder });
    try {
      await engine.save({
        sessionId: 'chat',
        messages: [
          { msgId: 'D1:1', role: 'user', speaker: 'Caroline', content: 'I adopted a puppy named Oscar from the shelter.' },
          { msgId: 'D1:2', role: 'assistant', speaker: 'Melanie', content: 'Thanks, Caroline! I painted a bowl of lemons.' },
        ],
      });
      embedder.texts = [];
      await engine.search('What did Melanie paint for Caroline?');
      expect(embedder.texts).toEqual(['What did Melanie paint for Caroline?', 'What did paint for?']);
      embedder.texts = [];
      await engine.search('What does Oscar eat?');
      expect(embedder.texts).toEqual(['What does Oscar eat?']);
    } finally {
      await engine.close();
    }
  });

  it('keeps the names in a conversation with an assistant, whose lines begin with roles', async () => {
    const embedder = new RecordingEmbedder();
    const engine = await bed.open(bed.dataDir(), { embedder });
    try {
      await engine.save({
        sessionId: 'work',
        messages: [
          { msgId: '1', role: 'user', content: 'I have never integrated Flask-Login into this project.' },
          { msgId: '2', role: 'assistant', content: 'Flask-Login keeps the user session for you.' },
        ],
      });
      embedder.texts = [];
      await engine.search('Have I integrated Flask-Login for sessions?');
      expect(embedder.texts).toEqual(['Have I integrated Flask-Login for sessions?']);
    } finally {
      await engine.close();
    }
  });
});
