/**
 * An engine opened only when asked for, loading the store's code only then: for the commands that
 * may find nothing to save (`sync`, `hook`, `hook-saver`), which then load neither the store nor the model.
 */
import type { GlobalOptions, Io } from './support.js';

export function lazyEngineOnDemand(options: GlobalOptions, io: Io) {
  let engine: ReturnType<typeof import('./engineSupport.js')['lazyEngine']> | null = null;
  return {
    get: async () => {
      engine ??= (await import('./engineSupport.js')).lazyEngine(options, io);
      return engine.get();
    },
    close: async () => engine?.close(),
  };
}
