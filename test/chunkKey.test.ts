import { describe, expect, it } from 'vitest';
import { chunkDialogue, type ChunkableMessage } from '../electron/engine/save/chunker.js';
import { chunkKey, isSmallTalk } from '../electron/engine/save/chunkKey.js';
import { HashEmbedder } from '../electron/embedding/hashEmbedder.js';
import { openEngine, hashEngineTestBed } from './helpers/engine.js';

const msg = (msgId: string, role: ChunkableMessage['role'], content: string, speaker?: string): ChunkableMessage => ({ msgId, role, content, ...(speaker ? { speaker } : {}) });
const keyOf = (messages: ChunkableMessage[]) => {
  const [chunk, ...rest] = chunkDialogue('s', messages, { maxTokens: 128 });
  expect(rest).toHaveLength(0);
  return { text: chunk!.text, key: chunkKey(chunk!.segments, chunk!.text) };
};

describe('the key a chunk is embedded from', () => {
  it('in a chat between named people, keeps what a line states and leaves out greetings, thanks, reactions and questions', () => {
    const { text, key } = keyOf([
      msg('1', 'user', 'Hey Mel! Good to see you! How have you been?', 'Caroline'),
      msg('2', 'assistant', 'Thanks, Caroline! I adopted a puppy last week. Wow, so cool!', 'Melanie'),
    ]);
    expect(text).toBe('Caroline: Hey Mel! Good to see you! How have you been?\nMelanie: Thanks, Caroline! I adopted a puppy last week. Wow, so cool!');
    expect(key).toBe('Melanie: I adopted a puppy last week.');
  });

  it('keys a chunk of role lines, and a named chunk that states nothing, by its whole text', () => {
    const roles = keyOf([msg('1', 'user', 'Thanks! How do I water tomatoes?'), msg('2', 'assistant', 'Great question. Water them deeply twice a week.')]);
    expect(roles.key).toBe(roles.text);
    const smallTalk = keyOf([msg('1', 'user', 'Hi Jon! How are you?', 'Gina'), msg('2', 'assistant', 'Good, thanks! You?', 'Jon')]);
    expect(smallTalk.key).toBe(smallTalk.text);
  });

  it('reads English words only in the Latin script: a Chinese line is kept whole', () => {
    const { key } = keyOf([msg('1', 'user', '你好！我上周领养了一只小狗。', '小红'), msg('2', 'assistant', 'Wow, so cool!', 'Mel')]);
    expect(key).toBe('小红: 你好！我上周领养了一只小狗。');
  });

  it('tells small talk from a short statement', () => {
    for (const s of ['Hey Mel!', 'Thanks, Caroline!', "Wow, that's awesome!", 'Good to hear that.', 'Take care!']) expect(isSmallTalk(s), s).toBe(true);
    for (const s of ['I love Paris.', 'Running is great!', 'I got married.', 'My cat is sick.']) expect(isSmallTalk(s), s).toBe(false);
  });
});

describe('a save embeds each chunk by its key', () => {
  const bed = hashEngineTestBed();

  it('embeds one text a chunk, the key, and stores the chunk text as it was', async () => {
    const embedded: string[] = [];
    class Recording extends HashEmbedder {
      override embed(texts: string[]): Promise<Float32Array[]> {
        embedded.push(...texts);
        return super.embed(texts);
      }
    }
    const engine = await openEngine(bed.dataDir(), new Recording());
    try {
      const report = await engine.save({
        sessionId: 'chat',
        messages: [
          { msgId: 'D1:1', role: 'user', content: 'Hey Mel! How have you been?', speaker: 'Caroline' },
          { msgId: 'D1:2', role: 'assistant', content: 'Thanks, Caroline! I adopted a puppy last week.', speaker: 'Melanie' },
        ],
      });
      const detail = await engine.showSession('chat');
      expect(report.embeddingsComputed).toBe(detail.chunks.length);
      expect(embedded).toEqual(['Melanie: I adopted a puppy last week.']);
      expect(detail.chunks.map((c) => c.text)).toEqual(['Caroline: Hey Mel! How have you been?\nMelanie: Thanks, Caroline! I adopted a puppy last week.']);
    } finally {
      await engine.close();
    }
  });
});
