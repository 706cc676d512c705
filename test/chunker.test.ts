import { describe, expect, it } from 'vitest';
import { chunkDialogue, estimateTokens, lexicalSimilarity, splitText, type ChunkableMessage } from '../electron/engine/save/chunker.js';

const msg = (msgId: string, role: ChunkableMessage['role'], content: string): ChunkableMessage => ({ msgId, role, content });

describe('chunkDialogue', () => {
  it('keeps a question and its answer together when they fit', () => {
    const chunks = chunkDialogue('s', [msg('1', 'user', 'How do I water tomatoes?'), msg('2', 'assistant', 'Water the tomatoes deeply twice a week.')], { maxTokens: 128 });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.msgIds).toEqual(['1', '2']);
    expect(chunks[0]!.text).toBe('user: How do I water tomatoes?\nassistant: Water the tomatoes deeply twice a week.');
  });

  it('never exceeds the model window, and never splits a turn that fits', () => {
    const messages: ChunkableMessage[] = [];
    for (let i = 0; i < 40; i++) messages.push(msg(`m${i}`, i % 2 ? 'assistant' : 'user', `tomatoes garden soil watering compost sentence number ${i} about the garden`));
    const chunks = chunkDialogue('s', messages, { maxTokens: 64 });
    for (const c of chunks) expect(estimateTokens(c.text)).toBeLessThanOrEqual(64);
    // Every chunk starts at a user message: turns are whole.
    for (const c of chunks) expect(c.segments[0]!.role).toBe('user');
    expect(chunks.flatMap((c) => c.msgIds)).toEqual(messages.map((m) => m.msgId));
  });

  it('splits a message longer than the window into parts, in order, losing nothing', () => {
    const long = Array.from({ length: 60 }, (_, i) => `Sentence ${i} explains one more detail of the plan.`).join(' ');
    const chunks = chunkDialogue('s', [msg('q', 'user', 'Explain the plan.'), msg('a', 'assistant', long)], { maxTokens: 128 });
    expect(chunks.length).toBeGreaterThan(3);
    const parts = chunks.flatMap((c) => c.segments.filter((s) => s.msgId === 'a'));
    expect(parts.map((p) => p.part)).toEqual(parts.map((_, i) => i));
    expect(parts.map((p) => p.text).join(' ')).toBe(long);
    for (const c of chunks) expect(estimateTokens(c.text)).toBeLessThanOrEqual(128);
  });

  it('splits text without spaces (Chinese) too', () => {
    const chinese = '我们今天讨论了如何增量保存对话记录。'.repeat(30);
    const parts = splitText(chinese, 50, estimateTokens);
    expect(parts.length).toBeGreaterThan(5);
    expect(parts.join('')).toBe(chinese);
    for (const p of parts) expect(estimateTokens(p)).toBeLessThanOrEqual(50);
  });

  it('starts a new chunk where the topic shifts, even with room left', () => {
    const messages = [
      msg('1', 'user', 'Which compost suits tomatoes in the garden?'),
      msg('2', 'assistant', 'Tomatoes like rich compost worked into the garden soil.'),
      msg('3', 'user', 'Explain the Lisbon train tickets and hotel booking.'),
      msg('4', 'assistant', 'Lisbon train tickets are sold at the station; book the hotel early.'),
    ];
    const chunks = chunkDialogue('s', messages, { maxTokens: 512 });
    expect(chunks.map((c) => c.msgIds)).toEqual([['1', '2'], ['3', '4']]);
    const sameTopic = chunkDialogue('s', [...messages.slice(0, 2), msg('3', 'user', 'And how often should the garden compost be turned for tomatoes?')], { maxTokens: 512 });
    expect(sameTopic).toHaveLength(1);
  });

  it('gives chunk ids that depend only on the session and the message parts held', () => {
    const messages = [msg('1', 'user', 'Hello there, garden question.'), msg('2', 'assistant', 'Garden answer.')];
    const a = chunkDialogue('s', messages, { maxTokens: 128 });
    const b = chunkDialogue('s', messages.map((m) => ({ ...m, content: `${m.content} (edited)` })), { maxTokens: 128 });
    expect(b[0]!.chunkId).toBe(a[0]!.chunkId);
    expect(b[0]!.textHash).not.toBe(a[0]!.textHash);
    expect(chunkDialogue('other', messages, { maxTokens: 128 })[0]!.chunkId).not.toBe(a[0]!.chunkId);
  });

  it('chunking the rest from a turn boundary gives the same chunks as chunking the whole', () => {
    const messages: ChunkableMessage[] = [];
    for (let i = 0; i < 60; i++) {
      const body = i % 7 === 3 ? Array.from({ length: 30 }, (_, k) => `Detail ${k} of answer ${i}.`).join(' ') : `Message ${i} about garden soil and tomatoes.`;
      messages.push(msg(`m${i}`, i % 2 ? 'assistant' : 'user', body));
    }
    const whole = chunkDialogue('s', messages, { maxTokens: 128 });
    whole.forEach((chunk, index) => {
      if (!chunk.startsTurn || index === 0) return;
      const firstMsg = messages.findIndex((m) => m.msgId === chunk.msgIds[0]);
      const rest = chunkDialogue('s', messages.slice(firstMsg), { maxTokens: 128 });
      expect(rest.map((c) => c.chunkId)).toEqual(whole.slice(index).map((c) => c.chunkId));
    });
  });
});

describe('lexicalSimilarity', () => {
  it('compares Chinese text by character pairs', () => {
    expect(lexicalSimilarity('增量保存对话', '保存对话记录')).toBeGreaterThan(0.3);
    expect(lexicalSimilarity('增量保存对话', '今天天气很好')).toBe(0);
  });
});
