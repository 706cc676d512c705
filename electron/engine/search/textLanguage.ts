/**
 * Which language a text is written in, as far as its script tells: the rules of search that read
 * English words (the words about the conversations themselves: questionTopic.ts; the standing wishes:
 * standingWishes.ts) read only text written in the Latin script, and the time a question names is read
 * with chrono-node's parser for the language its script tells (timeInQuestion.ts). Chinese, Japanese,
 * Korean, Russian or Ukrainian text is never read for English words, even where it quotes a few.
 *
 * The script is read by words, as the quote reader reads them (quotedPassage.ts): a run of letters is
 * one word, and in scripts written without spaces each character is one. A text is in the script of
 * most of its words. Languages that share a script (English, French, Spanish, German, ... in the Latin
 * script) are not told apart: no language detector is at hand here, and the English rules need
 * English words to fire, which such text seldom holds.
 */
import { passageWords } from './quotedPassage.js';

/**
 * `latin`: English or another language written in the Latin script; `zh`, `ja`, `ko`, `ru`, `uk`: told
 * by their script (Han alone, Han with kana, Hangul, Cyrillic with or without Ukrainian letters);
 * `other`: another script; `none`: no letters.
 */
export type TextLanguage = 'latin' | 'zh' | 'ja' | 'ko' | 'ru' | 'uk' | 'other' | 'none';

const LATIN = /^\p{Script=Latin}/u;
const HAN = /^\p{Script=Han}/u;
const KANA = /^[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HANGUL = /^\p{Script=Hangul}/u;
const CYRILLIC = /^\p{Script=Cyrillic}/u;
const UKRAINIAN_LETTERS = /[іїєґ]/iu;
const LETTER = /^\p{L}/u;

/** The language of a text as its script tells (see above). */
export function languageOf(text: string): TextLanguage {
  let latin = 0;
  let han = 0;
  let kana = 0;
  let hangul = 0;
  let cyrillic = 0;
  let other = 0;
  for (const word of passageWords(text)) {
    if (LATIN.test(word)) latin++;
    else if (HAN.test(word)) han++;
    else if (KANA.test(word)) kana++;
    else if (HANGUL.test(word)) hangul++;
    else if (CYRILLIC.test(word)) cyrillic++;
    else if (LETTER.test(word)) other++;
  }
  const most = Math.max(latin, han + kana, hangul, cyrillic, other);
  if (most === 0) return 'none';
  if (latin === most) return 'latin';
  if (han + kana === most) return kana > 0 ? 'ja' : 'zh';
  if (hangul === most) return 'ko';
  if (cyrillic === most) return UKRAINIAN_LETTERS.test(text) ? 'uk' : 'ru';
  return 'other';
}

/** Whether the rules that read English words may read this text: it is written in the Latin script (see above). */
export function mayBeEnglish(text: string): boolean {
  return languageOf(text) === 'latin';
}
