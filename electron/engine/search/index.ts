/**
 * Search: hybrid vector and full-text queries, rank fusion, folding copies of one memory together.
 * This entry holds what code outside the engine uses of it; inside the engine, modules import one
 * another by path.
 */
export { cosine } from './collapse.js';
export { loadTimeReading } from './timeInQuestion.js';
