// Embeds one text with use-lite-en in this process (argv: the models folder), and prints its first
// component: a test reads the modules the process loaded (test/helpers/loadedModules.ts).
import { loadUseLiteEn } from '../../electron/embedding/useLiteEn.js';

const embed = await loadUseLiteEn(process.argv[2]!);
const [vector] = await embed(['the tomato seedlings go outside after the last frost']);
process.stdout.write(`${vector![0]}\n`);
