/** How the chunks table is indexed for full-text search, and what of a text the n-gram index covers. */
import * as lancedb from '@lancedb/lancedb';

/**
 * Full-text layout of the chunks table, recorded in the meta table once a store has it:
 * a word index on `text` (fast for languages written with spaces) and an n-gram index on
 * `text_cjk`, which holds only the runs of scripts written without spaces (Chinese, Japanese,
 * Thai, ...) plus Korean, whose words carry particles. Stores written before this layout had one
 * n-gram index over all text, which costs ~70 ms a query at 200k chunks; `upgrade()` converts them.
 */
export const FTS_LAYOUT_KEY = 'fts_layout';
export const FTS_LAYOUT = 'words+cjk-ngram';
export const CJK_COLUMN = 'text_cjk';
/** Scripts written without spaces between words (and Korean): read by their n-grams, a character at a time. */
export const CJK_SCRIPTS = ['Han', 'Hiragana', 'Katakana', 'Hangul', 'Thai', 'Lao', 'Khmer', 'Myanmar'];
const NOT_CJK = new RegExp(`[^${CJK_SCRIPTS.map((s) => `\\p{scx=${s}}`).join('')}]+`, 'gu');

export const wordIndex = () => lancedb.Index.fts({ baseTokenizer: 'simple', lowercase: true, asciiFolding: true, stem: true, language: 'English', removeStopWords: true, withPosition: false });
export const ngramIndex = () => lancedb.Index.fts({ baseTokenizer: 'ngram', ngramMinLength: 2, ngramMaxLength: 3, lowercase: true, stem: false, removeStopWords: false, withPosition: false });

/** The parts of a text in scripts without word spaces, separated by single spaces ('' when there are none). */
export function cjkText(text: string): string {
  return text.replace(NOT_CJK, ' ').trim();
}
