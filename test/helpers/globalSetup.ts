// Build the offline model once for the whole run, so no test pays for it (or races another).
import { testModelDir } from './model.js';

export default async function setup(): Promise<void> {
  await testModelDir();
}
