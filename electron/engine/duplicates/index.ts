/**
 * The near-duplicate check: the vector sketch and its codes, nearest chunks, the pair journal. This
 * entry holds what code outside the engine uses of it; inside the engine, modules import one another
 * by path.
 */
export { DUPLICATE_THRESHOLD } from './nearDuplicates.js';
