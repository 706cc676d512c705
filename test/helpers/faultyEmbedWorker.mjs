// An embedding worker that fails on purpose, for the tests of what a crash or a stuck worker does.
// SM_FAULT=crash:<n>: the real worker, which exits at its n-th batch (before answering it).
// SM_FAULT=hang:<n>: the real worker, which never answers its n-th batch or any after it.
// Without SM_FAULT (a worker started after the test cleared it), the real worker as it is.
import { parentPort } from 'node:worker_threads';

// The real worker first: the port delivers its queued messages to the listeners present when the
// first one is added, so ours is added after the real one, and runs right after it for each message.
await import('../../electron/embedding/embedWorker.entry.mjs');

const [mode, at] = (process.env.SM_FAULT ?? '').split(':');
let batches = 0;
if (mode) {
  const deliver = parentPort.postMessage.bind(parentPort);
  let hung = false;
  // Answers are posted after the batch is embedded, that is after our listener has run.
  parentPort.postMessage = (message, transfer) => {
    if (hung && message.type !== 'progress') return;
    deliver(message, transfer);
  };
  parentPort.on('message', (request) => {
    if (request.type !== 'embed') return;
    batches++;
    if (batches < Number(at)) return;
    if (mode === 'crash') process.exit(3);
    if (mode === 'hang') hung = true;
  });
}
