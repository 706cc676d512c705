#!/usr/bin/env node
// The CLI runs from the TypeScript sources through tsx (a runtime dependency), so `npm ci` is all
// the setup it needs.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../electron/cli/main.ts');
process.exitCode = await main(process.argv);
