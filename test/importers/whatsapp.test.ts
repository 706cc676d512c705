import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../electron/importers/index.js';
import { fixture, sessionsOf } from './helpers.js';

const ANDROID_US = fixture('whatsapp', 'WhatsApp Chat with Priya Nair.txt');
const IPHONE = fixture('whatsapp', '_chat.txt');

const lines = (messages: Array<{ role: string; speaker?: string; content: string; timestamp?: string }>) =>
  messages.map((m) => [m.role, m.speaker, m.content, m.timestamp ?? null]);

describe('WhatsApp chat exports', () => {
  it('reads an Android export: names, 12-hour US dates, lines of one message, notices and media left out', async () => {
    const [session] = await sessionsOf(ANDROID_US);
    expect(session).toMatchObject({ sessionId: 'whatsapp:WhatsApp Chat with Priya Nair', title: 'WhatsApp Chat with Priya Nair', source: 'whatsapp' });
    // The chat is "with Priya Nair": the person who exported it is Sam, the user.
    expect(lines(session!.messages)).toEqual([
      ['user', 'Sam', 'Are we still on for the hike tomorrow?', '2023-12-30T21:58:00.000Z'],
      ['assistant', 'Priya Nair', 'Yes! Meet at the trailhead at 8.\nBring the blue thermos, the red one leaks.', '2023-12-30T22:02:00.000Z'],
      ['user', 'Sam', 'Happy new year btw', '2023-12-31T00:15:00.000Z'],
      ['assistant', 'Priya Nair', 'Running 10 min late', '2023-12-31T07:41:00.000Z'],
    ]);
  });

  it('reads an iPhone export: bracketed day-first dates with seconds, its notice under the chat\'s name left out, an attached photo as [image]', async () => {
    const [session] = await sessionsOf(IPHONE);
    expect(session).toMatchObject({ sessionId: 'whatsapp:_chat', title: 'WhatsApp chat: Lena, Tomás' });
    expect(lines(session!.messages)).toEqual([
      ['user', 'Lena', 'Hast du die Schlüssel für die Wohnung?', '2024-01-02T18:04:11.000Z'],
      ['assistant', 'Tomás', 'Ja, unter der Fußmatte.', '2024-01-02T18:06:40.000Z'],
      ['assistant', 'Tomás', '[image]', '2024-01-13T09:15:02.000Z'],
      ['user', 'Lena', 'Perfekt, danke!', '2024-01-13T09:16:30.000Z'],
    ]);
  });

  it('is told by its lines, and prose with a date in it is not', () => {
    expect(detectFormat(readFileSync(ANDROID_US))).toBe('whatsapp');
    expect(detectFormat(readFileSync(IPHONE))).toBe('whatsapp');
    expect(detectFormat('Meeting notes\n12/30/23, 9:58 PM we decided: nothing.\nUser: hi\n')).toBe('markdown');
  });
});
