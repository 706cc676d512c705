/**
 * REALTALK (Lee et al. 2025, "REALTALK: A 21-Day Real-World Dataset for Long-Term Conversation"): ten
 * chats between people who messaged each other every day for three weeks, 8,944 messages in 18-21
 * dated sessions each, with 728 memory-probing questions whose evidence names the messages
 * (`D1:6`). The files are `data/Chat_*.json` of github.com/danny911kr/REALTALK (measured at
 * b903e06); the repository states no licence, so they are not kept here: `bench:recall -- --set
 * realtalk --data <folder of Chat_*.json>` reads them from where they were put.
 *
 * Unlike LoCoMo, every message carries its own time (`29.12.2023, 22:42:04`, day first, no time zone:
 * read as UTC), the people sometimes call each other by other names than their display names, and a
 * few evidence ids name no message of the chat (85 of the 1,269 the questions name): those are left out of a question's
 * evidence, and a question left with none is not asked.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { SessionInput } from '../shared/domain.js';

interface RealtalkMessage {
  clean_text: string;
  speaker: string;
  date_time?: string;
  dia_id: string;
  blip_caption?: string;
}

interface RealtalkChat {
  name: { speaker_1: string; speaker_2: string };
  qa: Array<{ question: string; evidence?: unknown; category: number }>;
  [key: string]: unknown;
}

/** The question, its conversation, its category and the messages that answer it. */
export interface RealtalkQuestion {
  conversation: string;
  type: string;
  question: string;
  evidence: Set<string>;
}

/** The categories as REALTALK numbers them, which are LoCoMo's first three. */
const CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain' };

/** `29.12.2023, 22:42:04` as an ISO time (UTC). */
export function realtalkTime(text: unknown): string | undefined {
  const match = typeof text === 'string' ? /^(\d{1,2})\.(\d{1,2})\.(\d{4}),\s*(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim()) : null;
  if (!match) return undefined;
  const [, day, month, year, hour, minute, second] = match.map(Number) as number[];
  const time = Date.UTC(year!, month! - 1, day!, hour!, minute!, second ?? 0);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

function readChat(file: string): RealtalkChat {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: cannot read it as JSON (${(error as Error).message})`);
  }
  const chat = value as RealtalkChat;
  if (!chat || typeof chat !== 'object' || !chat.name || typeof chat.name.speaker_1 !== 'string' || !Array.isArray(chat.qa)) {
    throw new Error(`${file}: expected a REALTALK chat (an object with "name", "session_N" lists and "qa")`);
  }
  return chat;
}

/** The chats in the folder (`Chat_<n>_<a>_<b>.json`), in their number's order, each with its sessions and questions. */
export function realtalkConversations(dir: string, options: { rolesOnly: boolean }): Array<{ name: string; sessions: SessionInput[]; questions: RealtalkQuestion[] }> {
  const files = readdirSync(dir)
    .filter((name) => /^Chat_\d+_.*\.json$/.test(name))
    .sort((a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]));
  if (files.length === 0) throw new Error(`${dir}: no REALTALK chats (Chat_<n>_<a>_<b>.json) in it`);
  return files.map((fileName) => {
    const file = path.join(dir, fileName);
    const chat = readChat(file);
    const name = fileName.replace(/\.json$/, '');
    const numbers = Object.keys(chat)
      .map((key) => /^session_(\d+)$/.exec(key)?.[1])
      .filter((n): n is string => n !== undefined && Array.isArray(chat[`session_${n}`]))
      .map(Number)
      .sort((a, b) => a - b);
    const ids = new Set<string>();
    const sessions: SessionInput[] = numbers.map((n) => {
      const sessionTime = realtalkTime(chat[`session_${n}_date_time`]);
      return {
        sessionId: `realtalk-${name}-${n}`,
        source: 'json',
        messages: (chat[`session_${n}`] as RealtalkMessage[]).map((message) => {
          ids.add(message.dia_id);
          const timestamp = realtalkTime(message.date_time) ?? sessionTime;
          if (!timestamp) throw new Error(`${file}: session ${n}, ${message.dia_id}: cannot read its time "${String(message.date_time)}"`);
          return {
            msgId: message.dia_id,
            role: message.speaker === chat.name.speaker_1 ? 'user' : 'assistant',
            ...(options.rolesOnly ? {} : { speaker: message.speaker }),
            content: `${message.clean_text}${message.blip_caption ? `\n[shares ${message.blip_caption}]` : ''}`,
            timestamp,
          };
        }),
      };
    });
    const questions: RealtalkQuestion[] = [];
    for (const qa of chat.qa) {
      const evidence = new Set((JSON.stringify(qa.evidence ?? []).match(/D\d+:\d+/g) ?? []).filter((id) => ids.has(id)));
      if (evidence.size > 0) questions.push({ conversation: name, type: `${qa.category} ${CATEGORIES[qa.category] ?? 'other'}`, question: qa.question, evidence });
    }
    return { name, sessions, questions };
  });
}
