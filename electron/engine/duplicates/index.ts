/**
 * The near-duplicate check: the vector sketch and its codes, nearest chunks, the pair journal. This
 * entry holds what code outside the engine uses of it; inside the engine, modules import one another
 * by path.
 */
export { DUPLICATE_THRESHOLD } from './nearDuplicates.js';
// The sketch and its scan, for the benchmark of the check's code comparisons (scripts/bench-sketch.ts).
export { VectorSketch } from './vectorSketch.js';
export { closeEntries } from './sketchScan.js';
