/**
 * The conversation of a log whose lines name the line before them (Claude Code's and Qwen Code's
 * `uuid` / `parentUuid`): the chain from the last line back along those links, as the tool reads its
 * own log when it resumes a session. Rewinding or editing a prompt leaves the abandoned lines in the
 * file on a branch the chain does not pass.
 */

export interface ChainLinks<T> {
  /** The line's own id (a line without one ends the chain). */
  idOf: (item: T) => string | undefined;
  /** The id of the line before it (none: the first line). */
  parentOf: (item: T) => string | undefined;
  /** The line of each id. */
  byId: ReadonlyMap<string, T>;
  /**
   * Where the chain may go on when a parent is not in the file (a damaged line that was skipped, which
   * must not cost the conversation before it): the nearest earlier line, in file order, that this
   * accepts and the chain has not passed.
   */
  resumesAt: (item: T) => boolean;
}

/** The lines from the first to `leaf` along the links; `items` in file order. */
export function chainToLeaf<T>(items: readonly T[], leaf: T | undefined, links: ChainLinks<T>): T[] {
  const chain: T[] = [];
  const seen = new Set<string>();
  // Looked up only when a parent is missing, which a whole log never has.
  let place: Map<T, number> | undefined;
  const earlier = (from: T): T | undefined => {
    place ??= new Map(items.map((item, index) => [item, index]));
    for (let i = (place.get(from) ?? 0) - 1; i >= 0; i--) {
      const candidate = items[i]!;
      const id = links.idOf(candidate);
      if (id !== undefined && !seen.has(id) && links.resumesAt(candidate)) return candidate;
    }
    return undefined;
  };
  for (let item = leaf; item !== undefined; ) {
    const id = links.idOf(item);
    if (id === undefined || seen.has(id)) break;
    seen.add(id);
    chain.push(item);
    const parent = links.parentOf(item);
    if (parent === undefined) break;
    item = links.byId.get(parent) ?? earlier(item);
  }
  return chain.reverse();
}
