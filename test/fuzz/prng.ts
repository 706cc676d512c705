/**
 * A small deterministic PRNG for the fuzz tests (xorshift32), so a failing case can be replayed
 * from its seed alone, and the seed bookkeeping every fuzz test shares.
 */

/** The base seed of a run: `FUZZ_SEED` when set (to replay or explore), else a fixed one so CI is deterministic. */
export function baseSeed(): number {
  const given = process.env.FUZZ_SEED;
  if (given === undefined || given.trim() === '') return 20_240_501;
  const parsed = Number(given);
  if (!Number.isSafeInteger(parsed)) throw new Error(`FUZZ_SEED must be an integer, not ${JSON.stringify(given)}`);
  return parsed >>> 0;
}

/** Multiplies the case counts (`FUZZ_SCALE=10` for a longer local run); 1 in CI. */
export function fuzzScale(): number {
  const given = Number(process.env.FUZZ_SCALE ?? '1');
  return Number.isFinite(given) && given > 0 ? given : 1;
}

/** Printed once by every fuzz test (vitest shows which test printed it). */
export function logSeed(seed: number): void {
  console.log(`fuzz seed ${seed} (replay: FUZZ_SEED=${seed} npx vitest run test/fuzz)`);
}

/** A seed for one case, mixed from the run's seed, a stream name and the case index (FNV-1a, then a final mix). */
export function caseSeed(base: number, stream: string, index: number): number {
  let hash = 0x811c9dc5 ^ base;
  for (const char of `${stream}#${index}`) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return (hash >>> 0) || 1;
}

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  /** The next 32 random bits (xorshift32). */
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state;
  }

  /** A float in [0, 1). */
  float(): number {
    return this.next() / 0x1_0000_0000;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)]!;
  }

  /** One of `choices`, each with its weight. */
  weighted<T>(choices: ReadonlyArray<readonly [number, T]>): T {
    const total = choices.reduce((sum, [weight]) => sum + weight, 0);
    let roll = this.float() * total;
    for (const [weight, value] of choices) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return choices.at(-1)![1];
  }

  /** A fresh generator derived from this one (so adding draws to one branch leaves the others alone). */
  fork(): Rng {
    return new Rng(this.next() ^ 0x5bd1e995);
  }
}
