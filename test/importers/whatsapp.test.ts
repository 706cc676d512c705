import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../electron/importers/index.js';
import { fixture, readAll, sessionsOf, tempDir } from './helpers.js';

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
    // An iPhone's file is always _chat.txt: the folder it is in names the session; its first notice, under
    // the chat's name, titles it as the ZIP it came in would have.
    expect(session).toMatchObject({ sessionId: 'whatsapp:whatsapp', title: 'WhatsApp Chat - Tomás' });
    expect(lines(session!.messages)).toEqual([
      ['user', 'Lena', 'Hast du die Schlüssel für die Wohnung?', '2024-01-02T18:04:11.000Z'],
      ['assistant', 'Tomás', 'Ja, unter der Fußmatte.', '2024-01-02T18:06:40.000Z'],
      ['assistant', 'Tomás', '[image]', '2024-01-13T09:15:02.000Z'],
      ['user', 'Lena', 'Perfekt, danke!', '2024-01-13T09:16:30.000Z'],
    ]);
  });

  it("names an iPhone's _chat.txt after the ZIP or folder it came in, so two chats stay two sessions", async () => {
    const dir = tempDir();
    for (const name of ['WhatsApp Chat - Tomás', 'WhatsApp Chat - Family']) {
      mkdirSync(path.join(dir, name));
      copyFileSync(IPHONE, path.join(dir, name, '_chat.txt'));
    }
    const sessions = (await readAll([dir])).flatMap((result) => ('error' in result ? [] : result.sessions));
    expect(sessions.map((session) => [session.sessionId, session.messages[0]!.role])).toEqual([
      // "Chat - Tomás": Tomás is the other person, so Lena exported it.
      ['whatsapp:WhatsApp Chat - Family', 'user'],
      ['whatsapp:WhatsApp Chat - Tomás', 'user'],
    ]);
  });

  it("takes an iPhone's _chat.txt, named by nothing, as exported by whoever is not under its first notice", async () => {
    // The other person wrote first; the first notice, under the chat's name, says who the chat is with.
    const file = path.join(tempDir(), '_chat.txt');
    writeFileSync(file, [
      '[21/11/25, 9:33:35] Dana: \u200eMessages and calls are end-to-end encrypted. Only people in this chat can read, listen to, or share them.',
      '[21/11/25, 9:33:50] Dana: Did you get my photos?',
      '[21/11/25, 9:34:02] Carlos: They were all deleted',
      '',
    ].join('\r\n'));
    const [session] = await sessionsOf(file);
    expect(session!.title).toBe('WhatsApp Chat - Dana');
    expect(lines(session!.messages)).toEqual([
      ['assistant', 'Dana', 'Did you get my photos?', '2025-11-21T09:33:50.000Z'],
      ['user', 'Carlos', 'They were all deleted', '2025-11-21T09:34:02.000Z'],
    ]);
  });

  it('leaves out the missed calls an Android phone logs under the caller, not words typed about a call', async () => {
    // As in a real Android export (Tapan48/Whatsapp-Chat-analyzer, WhatsApp Chat with Mom.txt).
    const file = path.join(tempDir(), 'WhatsApp Chat with Mom.txt');
    writeFileSync(file, '05/09/2023, 22:40 - Mom: Missed voice call\n05/09/2023, 22:41 - Mom: Missed video call\n05/09/2023, 23:19 - Ravi: Will call tom\n05/09/2023, 23:20 - Ravi: video call\n');
    const [session] = await sessionsOf(file);
    expect(lines(session!.messages)).toEqual([
      ['user', 'Ravi', 'Will call tom', '2023-09-05T23:19:00.000Z'],
      ['user', 'Ravi', 'video call', '2023-09-05T23:20:00.000Z'],
    ]);
  });

  it("leaves out the mark an iPhone appends to an edited message, in the phone's language", async () => {
    // As in KerYagciHTL/ChatAnalyse (German, 370 of them), GabrielGabes/PegaPlantao (Portuguese), CharlyA84's (English).
    const file = path.join(tempDir(), '_chat.txt');
    writeFileSync(
      file,
      '[27.09.23, 18:02:11] Lena: Wir treffen uns um 8 \u200e<Diese Nachricht wurde bearbeitet.>\n' +
        '[27.09.23, 18:03:40] Tom: Passt, bis\nmorgen \u200e<This message was edited>\n' +
        '[27.09.23, 18:04:02] Lena: \u200e<attached: 00000012-PHOTO-2023-09-27-18-04-02.jpg> \u200e<Mensagem editada>\n',
    );
    const [session] = await sessionsOf(file);
    expect(session!.messages.map((message) => message.content)).toEqual(['Wir treffen uns um 8', 'Passt, bis\nmorgen', '[image]']);
  });

  it('is told by its lines, and prose with a date in it is not', () => {
    expect(detectFormat(readFileSync(ANDROID_US))).toBe('whatsapp');
    expect(detectFormat(readFileSync(IPHONE))).toBe('whatsapp');
    expect(detectFormat('Meeting notes\n12/30/23, 9:58 PM we decided: nothing.\nUser: hi\n')).toBe('markdown');
    // A server's log is not a chat, though its lines have a date, a time and a colon.
    expect(detectFormat('2023-12-31 10:00:00 - server: started\n2023-12-31 10:00:05 - worker: ready\n')).toBeUndefined();
  });
});
