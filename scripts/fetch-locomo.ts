/**
 * `npx tsx scripts/fetch-locomo.ts <file>`
 *
 * Downloads LoCoMo's `data/locomo10.json` (github.com/snap-research/locomo at a fixed commit) to the
 * file given, for `npm run bench:recall -- --set locomo --data <file>`. Its licence (CC BY-NC 4.0)
 * does not allow keeping it in this repository. The download is checked against the SHA-256 of the
 * file measured in docs/retrieval.md, so that figures are compared on the same data.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const COMMIT = '3eb6f2c585f5e1699204e3c3bdf7adc5c28cb376';
const URL = `https://raw.githubusercontent.com/snap-research/locomo/${COMMIT}/data/locomo10.json`;
const SHA256 = '79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4';

async function main(): Promise<void> {
  const target = process.argv[2];
  if (!target) {
    console.error('usage: npx tsx scripts/fetch-locomo.ts <file to write, e.g. ../data/locomo10.json>');
    process.exit(2);
  }
  const response = await fetch(URL);
  if (!response.ok) throw new Error(`${URL}: ${response.status} ${response.statusText}`);
  const body = Buffer.from(await response.arrayBuffer());
  const sha = createHash('sha256').update(body).digest('hex');
  if (sha !== SHA256) throw new Error(`${URL}: SHA-256 ${sha}, expected ${SHA256} (not the file the figures were measured on)`);
  writeFileSync(path.resolve(target), body);
  console.log(`${path.resolve(target)}: LoCoMo (${body.length} bytes, CC BY-NC 4.0)`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
