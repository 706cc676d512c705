// A process that closes its embedder while the model is embedding large requests (the app quitting,
// or the MCP server stopping, in the middle of a save): `node --import tsx closeWhileEmbedding.mts
// <models dir> <ms before close>`. It prints how the request ended and exits 0, unless closing the
// worker aborts the process.
import { WorkerEmbedder } from '../../electron/embedding/embedder.js';

const [modelsDir, delay] = process.argv.slice(2);
const embedder = await WorkerEmbedder.start('use-lite-en', { modelsDir: modelsDir! });
const texts = Array.from({ length: 3000 }, (_, i) => `message ${i}: the apple tree wants pruning before the frost, said the gardener on day ${i % 97}`);
// Three requests: the third starts a second worker (two on a machine of two cores), which the close finds starting or embedding.
const request = Promise.all([embedder.embed(texts.slice(0, 1000)), embedder.embed(texts.slice(1000, 2000)), embedder.embed(texts.slice(2000))]).then(
  () => 'answered',
  (error: Error) => error.message,
);
await new Promise((resolve) => setTimeout(resolve, Number(delay)));
await embedder.close();
console.log(`request: ${await request}`);
