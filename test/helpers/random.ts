/**
 * Characters drawn from an alphabet by a seeded generator (mulberry32): test data in a given format
 * (a provider's key, a hex id) that is the same on every run, so a failure names the same text.
 */
export function seededChars(seed: number): (alphabet: string, length: number) => string {
  let state = seed;
  return (alphabet, length) => {
    let out = '';
    for (let i = 0; i < length; i++) {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      out += alphabet[((t ^ (t >>> 14)) >>> 0) % alphabet.length];
    }
    return out;
  };
}
