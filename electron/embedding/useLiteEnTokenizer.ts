// use-lite-en's tokenizer files for transformers.js, from the package's SentencePiece vocabulary (see useLiteEn.ts).
import { USE_LITE_EN, type Vocab } from './useLiteEnPackage.js';

// ---------------------------------------------------------------------------------------------------------
// Tokenizer and configs

const SPACE = '\u2581'; // SentencePiece's word-boundary mark

/**
 * The package's own tokenizer (in @energetic-ai/embeddings) is a SentencePiece unigram Viterbi over the
 * whole text: NFKC, every ' ' -> U+2581 and one U+2581 prepended (even before a leading space), pieces
 * 0-5 never matched, characters outside the vocabulary become id 0 with runs of them merged into one.
 * This tokenizer.json reproduces it under transformers.js:
 * - the U+2581 handling is done by normalizers, not the Metaspace pre-tokenizer, because Metaspace skips
 *   the prepend when the text already starts with a space ("  a" must give ▁ ▁ ▁a);
 * - no pre-tokenizer split on U+2581: the original runs Viterbi over the whole string;
 * - reserved pieces 0-5 get a score no path would pick (lower than spelling them out character by
 *   character), so a literal "<s>" in a text is tokenized as text, as in the original;
 * - the vocabulary has a few pieces with a null score (the ones with ':'), which the original adds as 0,
 *   and its Viterbi treats a running score of exactly 0 as "no path yet": at the very start of a text a
 *   zero-score piece ("▁:", "▁:)", ...) is always overridden. Splitting off the leading U+2581 before such
 *   a piece reproduces that.
 * Left as is: exact score ties (the same pieces in two orders, e.g. "---" as "-" "--" or "--" "-", common
 * in runs of one character) go to the longer last piece in transformers.js's lattice but to the shorter one
 * in the original; no tokenizer.json setting changes that.
 */
export function tokenizerJson(vocab: Vocab): unknown {
  const RESERVED = 6; // the original tokenizer never inserts ids 0-5 into its trie
  const scores = vocab.slice(RESERVED).map(([, score]) => score ?? 0);
  const never = 100 * Math.floor(Math.min(...scores));
  const maxPiece = Math.max(...vocab.slice(0, RESERVED).map(([piece]) => [...piece].length));
  if (never >= maxPiece * Math.min(...scores)) throw new Error('use-lite-en: reserved-piece score too high');

  const pieces = vocab.map(([piece, score], id): [string, number] => [piece, id < RESERVED ? never : (score ?? 0)]);

  // Characters c for which "▁c..." pieces exist with score 0; all such pieces must be zero-score for
  // the split to be exact.
  const zeroStarts = new Set<string>();
  for (const [piece, score] of pieces.slice(RESERVED)) {
    const second = [...piece][1];
    if (piece.startsWith(SPACE) && second !== undefined && score === 0) zeroStarts.add(second);
  }
  for (const [piece, score] of pieces.slice(RESERVED)) {
    const second = [...piece][1];
    if (piece.startsWith(SPACE) && second !== undefined && zeroStarts.has(second) && score !== 0) {
      throw new Error(`use-lite-en: cannot reproduce the zero-score quirk for ${piece}`);
    }
  }
  const escaped = [...zeroStarts].map((c) => c.replace(/[\\\]^-]/g, '\\$&')).join('');

  return {
    version: '1.0',
    truncation: { direction: 'Right', max_length: USE_LITE_EN.maxTokens, strategy: 'LongestFirst', stride: 0 },
    padding: null,
    added_tokens: [],
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'NFKC' },
        { type: 'Replace', pattern: { String: ' ' }, content: SPACE },
        { type: 'Prepend', prepend: SPACE },
      ],
    },
    pre_tokenizer: zeroStarts.size === 0 ? null : {
      type: 'Split',
      pattern: { Regex: `^${SPACE}(?=[${escaped}])` },
      behavior: 'Isolated',
      invert: false,
    },
    post_processor: null,
    decoder: { type: 'Metaspace', replacement: SPACE, prepend_scheme: 'always', split: true },
    model: { type: 'Unigram', unk_id: 0, vocab: pieces, byte_fallback: false },
  };
}

export function tokenizerConfig(vocab: Vocab): unknown {
  const unk = vocab[0]?.[0];
  return {
    tokenizer_class: 'PreTrainedTokenizer',
    model_max_length: USE_LITE_EN.maxTokens,
    unk_token: unk,
    pad_token: unk, // any id works: padded positions are masked out in the graph
    padding_side: 'right',
    clean_up_tokenization_spaces: false,
  };
}
