/**
 * Forgetting and redacting: what a forgotten session leaves, the purge journal, the redaction rules.
 * This entry holds what code outside the engine uses of it; inside the engine, modules import one
 * another by path.
 */
export { LOG_FOLDER } from './forgetTraces.js';
