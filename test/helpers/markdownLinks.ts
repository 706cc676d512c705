/**
 * The relative links of Markdown files, checked as GitHub resolves them: the path from the file's own
 * folder to a file or folder that exists, and a `#anchor` to a heading of the Markdown file it names
 * (or of the same file), by GitHub's heading ids.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface MarkdownLink {
  file: string;
  line: number;
  target: string;
}

/** Text that Markdown does not read as links: fenced code blocks, inline code spans and HTML comments, blanked out (line breaks kept, so that line numbers stay). */
function prose(markdown: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  return markdown
    .replace(/^( *)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, blank)
    .replace(/<!--[\s\S]*?-->/g, blank)
    .replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, blank);
}

/** Every link target in a Markdown text: inline links and images, and reference definitions. */
export function linksOf(markdown: string, file: string): MarkdownLink[] {
  const text = prose(markdown);
  const links: MarkdownLink[] = [];
  const lineAt = (index: number) => text.slice(0, index).split('\n').length;
  for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) {
    links.push({ file, line: lineAt(m.index), target: m[1]!.replace(/^<|>$/g, '') });
  }
  for (const m of text.matchAll(/^ {0,3}\[[^\]]+\]:\s*(\S+)/gm)) links.push({ file, line: lineAt(m.index), target: m[1]! });
  return links;
}

/**
 * A heading's id as GitHub makes it (the rule of github-slugger): its text as rendered, lower-cased,
 * every character that is not a letter, mark, number, connector (`_`), space or hyphen dropped, and
 * spaces turned into hyphens. A repeated id gets `-1`, `-2`, ... in order.
 */
export function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = markdown.replace(/^( *)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, '');
  for (const m of withoutCode.matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/gm)) {
    const rendered = m[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/[`*]/g, '')
      .replace(/(^|\W)_+|_+(?=\W|$)/g, '$1');
    const base = rendered.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    let id = base;
    while (ids.has(id)) {
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      id = `${base}-${n}`;
    }
    ids.add(id);
  }
  return ids;
}

/** The relative links of these Markdown files that lead nowhere, each with why. */
export function brokenLinks(files: readonly string[]): Array<MarkdownLink & { problem: string }> {
  const broken: Array<MarkdownLink & { problem: string }> = [];
  for (const file of files) {
    for (const link of linksOf(readFileSync(file, 'utf8'), file)) {
      // Absolute URLs (https:, mailto:, ...) are not files of this repository.
      if (/^[a-z][a-z0-9+.-]*:/i.test(link.target) || link.target.startsWith('//')) continue;
      const hash = link.target.indexOf('#');
      const pathPart = decodeURIComponent(hash < 0 ? link.target : link.target.slice(0, hash));
      const anchor = hash < 0 ? null : decodeURIComponent(link.target.slice(hash + 1));
      const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), pathPart);
      if (!existsSync(resolved)) {
        broken.push({ ...link, problem: `${pathPart} does not exist` });
        continue;
      }
      if (anchor === null) continue;
      if (!statSync(resolved).isFile() || !resolved.endsWith('.md')) {
        broken.push({ ...link, problem: `#${anchor} points into ${pathPart}, which is not a Markdown file` });
        continue;
      }
      if (!headingIds(readFileSync(resolved, 'utf8')).has(anchor)) {
        broken.push({ ...link, problem: `${pathPart || path.basename(file)} has no heading #${anchor}` });
      }
    }
  }
  return broken;
}
