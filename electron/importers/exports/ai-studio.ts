/**
 * Google AI Studio prompts, as saved to Google Drive (a JSON file, often without an extension):
 * `runSettings`, `systemInstruction`, and the dialogue in `chunkedPrompt.chunks[]`, each with `role`
 * ("user" | "model") and `text`. The model's thinking is kept as chunks with `isThought: true` (or as
 * `parts[]` with `thought: true`): it is thinking, left out unless included. Attached images and files
 * are chunks without text.
 *
 * The file holds no id: the session is named by its first chunk (re-saving the prompt after more
 * turns keeps the session); the title is the file's name, which is the prompt's name in Drive.
 */
import { createHash } from 'node:crypto';
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import { ShapeError } from '../errors.js';
import { IMAGE_PLACEHOLDER, messagesFromParts, type MappingOptions, type MessagePart } from '../parts.js';
import { at, isObject, optionalText, requireArray, requireObject, type JsonObject } from '../shape.js';

export function isAiStudioPrompt(value: unknown): boolean {
  return isObject(value) && isObject(value.chunkedPrompt) && Array.isArray(value.chunkedPrompt.chunks);
}

/** @param baseName the file's name, which Drive gives the prompt's title. */
export function mapAiStudioPrompt(value: unknown, where: string, options: MappingOptions, baseName = ''): SessionInput {
  const prompt = requireObject(value, where);
  const chunksWhere = at(at(where, 'chunkedPrompt'), 'chunks');
  const chunks = requireArray(requireObject(prompt.chunkedPrompt, at(where, 'chunkedPrompt')).chunks, chunksWhere);
  const messages: MessageInput[] = [];
  const system = systemText(prompt.systemInstruction);
  if (system !== undefined) messages.push({ role: 'system', content: system });
  chunks.forEach((chunk, index) => {
    const located = requireObject(chunk, at(chunksWhere, index));
    for (const mapped of mapChunk(located, at(chunksWhere, index), options)) messages.push(mapped);
  });
  const first = chunks.find((c) => isObject(c) && typeof c.text === 'string' && c.isThought !== true) as JsonObject | undefined;
  const identity = JSON.stringify([system ?? null, first?.role ?? null, first?.text ?? null]);
  const stem = baseName.replace(/\.json$/i, '').trim();
  const title = stem !== '' ? stem : (first?.text as string | undefined)?.split('\n')[0]?.slice(0, 80);
  return { sessionId: `ai-studio-${createHash('sha256').update(identity).digest('hex').slice(0, 16)}`, ...(title ? { title } : {}), source: 'ai-studio', messages };
}

function systemText(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  if (typeof value.text === 'string' && value.text.trim() !== '') return value.text;
  if (Array.isArray(value.parts)) {
    const text = value.parts.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join('');
    if (text.trim() !== '') return text;
  }
  return undefined;
}

function mapChunk(chunk: JsonObject, where: string, options: MappingOptions): MessageInput[] {
  const roleName = optionalText(chunk.role);
  if (roleName !== 'user' && roleName !== 'model') throw new ShapeError(`${at(where, 'role')} must be "user" or "model"`);
  const role = roleName === 'user' ? 'user' : 'assistant';
  return messagesFromParts({ role }, chunkParts(chunk), options);
}

function chunkParts(chunk: JsonObject): MessagePart[] {
  if (typeof chunk.text === 'string') return [{ kind: chunk.isThought === true ? 'thinking' : 'text', text: chunk.text }];
  if (Array.isArray(chunk.parts)) {
    return chunk.parts.filter(isObject).map((part): MessagePart => ({ kind: part.thought === true || chunk.isThought === true ? 'thinking' : 'text', text: typeof part.text === 'string' ? part.text : '' }));
  }
  if (isObject(chunk.driveImage) || isObject(chunk.inlineImage)) return [{ kind: 'text', text: IMAGE_PLACEHOLDER }];
  if (isObject(chunk.driveDocument) || isObject(chunk.inlineFile)) return [{ kind: 'text', text: '[file]' }];
  return [];
}
