/**
 * Long synchronous work written as a generator that yields at safe points can run in one go
 * (`runToEnd`), or in slices that give the event loop a turn every few milliseconds
 * (`runInSlices`), so a big save never stalls the thread that also serves the UI.
 */
export function runToEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

export async function runInSlices<T>(steps: Generator<void, T>, sliceMs = 8): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart > sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}
