/**
 * ChatGPT writes markers into the text of its answers, in Unicode's private use area, which its app
 * renders as links and names and which an export keeps as they are:
 *
 *   \ue200cite\ue202turn0search3\ue201                   a citation: the message's `content_references`
 *                                                        say what it shows (`alt`, or the sources' links)
 *   \ue200entity\ue202["people","Ada Lovelace","…"]\ue201 a person, place or thing: shown as its name
 *   \ue200url\ue202OpenAI\ue202https://openai.com\ue201     a link: its label and address
 *   \ue200filenavlist\ue202<n>\ue205<description>…\ue201  a list of files: their descriptions
 *   \ue200filecite…\ue201, \ue200navlist…\ue201, \ue203 \ue204 …  shown as nothing here
 *   【4†source】, 【11†L10-L15】                            the citations of older answers
 *
 * Left in the text they are noise to read and to search (`citeturn0search3`), and an entity's
 * marker hides the very name a person searches for. They become what the app shows: the name, the
 * link, the source, or nothing.
 */
import { isObject, type JsonObject } from '../shape.js';

const MARKER = /\ue200([a-z_]+)\ue202([^\ue200\ue201]*)\ue201/g;
/** What is left once the markers are read: lone start, end, separator and span characters. */
const STRAY = /[\ue200-\ue206]/g;
/** `【4†source】`, `【11†L10-L15】`, `【message_idx†source】`: older answers' citations. */
const OLD_CITATION = /【[^】\n]{0,40}†[^】\n]{0,80}】/g;

/** The text as ChatGPT's app shows it, given the message's `metadata`. */
export function readableAnswer(text: string, metadata: unknown): string {
  if (!/[\ue200-\ue206【]/.test(text)) return text;
  let out = text;
  for (const reference of contentReferences(metadata)) {
    const matched = reference.matched_text;
    // Only a marker is replaced: a `sources_footnote` reference lists the sources after the answer
    // and names a blank as its matched text, which would take every space out of it.
    if (typeof matched !== 'string' || !/[\ue200-\ue206【]/.test(matched) || !out.includes(matched)) continue;
    // A list of files is read from its marker, which describes every file (its reference may list fewer).
    if (reference.type === 'file_navlist') continue;
    out = out.split(matched).join(shownFor(reference));
  }
  out = out.replace(MARKER, (_whole, kind: string, body: string) => markerText(kind, body));
  out = out.replace(STRAY, '').replace(OLD_CITATION, '');
  // A marker dropped between words or before punctuation leaves a double space or a space before it.
  return out.replace(/[ \t]{2,}/g, ' ').replace(/[ \t]+([.,;:!?)])/g, '$1');
}

function contentReferences(metadata: unknown): JsonObject[] {
  if (!isObject(metadata) || !Array.isArray(metadata.content_references)) return [];
  return metadata.content_references.filter(isObject);
}

/** What a content reference shows in place of its marker. */
function shownFor(reference: JsonObject): string {
  if (reference.type === 'hidden') return '';
  if (typeof reference.alt === 'string' && reference.alt.trim() !== '') return ` ${reference.alt.trim()}`;
  const links = (Array.isArray(reference.items) ? reference.items : [])
    .filter(isObject)
    .map((item) => {
      const url = typeof item.url === 'string' ? item.url : '';
      const name = [item.attribution, item.title].find((value): value is string => typeof value === 'string' && value.trim() !== '') ?? url;
      return url === '' ? name : `[${name}](${url})`;
    })
    .filter((link) => link !== '');
  if (links.length > 0) return ` (${links.join(', ')})`;
  const urls = Array.isArray(reference.safe_urls) ? reference.safe_urls.filter((url): url is string => typeof url === 'string') : [];
  return urls.length > 0 ? ` (${urls.join(', ')})` : '';
}

/** A marker no content reference explained. */
function markerText(kind: string, body: string): string {
  const fields = body.split('\ue202');
  if (kind === 'entity') {
    try {
      const entity: unknown = JSON.parse(body);
      if (Array.isArray(entity) && typeof entity[1] === 'string') return entity[1];
    } catch {
      // Not the JSON array ChatGPT writes: shown as nothing, as the app does with a marker it cannot read.
    }
    return '';
  }
  if (kind === 'filenavlist') {
    // `<message>:<result>\ue205<description>` for each file ChatGPT lists: shown as the descriptions.
    return fields.map((field) => field.split('\ue205').slice(1).join(' ').trim()).filter((description) => description !== '').map((description) => `- ${description}`).join('\n');
  }
  if (kind === 'url') {
    const [label = '', target = ''] = fields;
    return /^https?:\/\//.test(target) ? `[${label}](${target})` : label;
  }
  return '';
}
