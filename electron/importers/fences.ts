/**
 * Where Markdown's fenced code blocks begin and end, by CommonMark's rules: a block opens with a line
 * of three or more backticks or tildes, indented by at most three spaces (after backticks, an info
 * string without backticks may follow: ` ```bash `), and closes only with a line of the same
 * character, at least as long, with nothing but spaces after it.
 *
 * A reader that flips "in code" at every line starting with three backticks goes wrong on real
 * transcripts: a diff of a Markdown file holds context lines such as `  ```bash`, which open nothing
 * and close nothing, and after one of them every speaker label that follows reads as code.
 */

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

export type FenceStep = 'opens' | 'closes' | 'code' | 'text';

export class CodeFences {
  /** The run of backticks or tildes that opened the block the reader is in. */
  private opener: string | undefined;

  /** Whether the reader is inside a code block (after its opening line, before its closing one). */
  get inside(): boolean {
    return this.opener !== undefined;
  }

  /** Reads the next line: whether it opens a block, closes one, is code, or is text. */
  step(line: string): FenceStep {
    const fence = FENCE_LINE.exec(line);
    if (this.opener === undefined) {
      if (!fence || (fence[1]!.startsWith('`') && fence[2]!.includes('`'))) return 'text';
      this.opener = fence[1];
      return 'opens';
    }
    if (fence && fence[1]![0] === this.opener[0] && fence[1]!.length >= this.opener.length && fence[2]!.trim() === '') {
      this.opener = undefined;
      return 'closes';
    }
    return 'code';
  }

  /** Leaves the block the reader is in, as where the writer is known to have left it unclosed. */
  leave(): void {
    this.opener = undefined;
  }
}

/** The info string's first word of a line that opens a code block (` ```diff ` → `diff`), lower-cased. */
export function fenceLanguage(line: string): string {
  return (FENCE_LINE.exec(line)?.[2] ?? '').trim().split(/\s+/)[0]!.toLowerCase();
}
