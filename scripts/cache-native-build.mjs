// Keeps the better-sqlite3 binary that `npm ci` compiled (its prebuilt binaries are on GitHub, which
// this network does not reach, so its install script builds SQLite from source: about 75 s of CPU)
// in prebuild-install's own cache (<npm cache>/_prebuilds, under the name of the release asset it
// would download). The next `npm ci` of this version, for this Node ABI and platform, on this machine
// unpacks it there instead of compiling; prebuild-install loads it before using it and compiles when
// it does not load. Run by .ci/run after `npm ci`; does nothing when the cache already holds it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const packageDir = path.dirname(require.resolve('better-sqlite3/package.json'));
const binary = path.join('build', 'Release', 'better_sqlite3.node');
const fromPackage = createRequire(path.join(packageDir, 'package.json'));
const rc = fromPackage('prebuild-install/rc');
const util = fromPackage('prebuild-install/util');

const pkg = fromPackage('./package.json');
// prebuild-install reads npm's cache folder from npm_config_cache, as when npm runs it.
process.env.npm_config_cache ??= execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
const cached = util.cachedPrebuild(util.getDownloadUrl({ ...rc(pkg), pkg }));

if (existsSync(cached)) {
  console.log(`better-sqlite3 ${pkg.version}: its binary is in the cache (${cached})`);
} else if (existsSync(path.join(packageDir, binary))) {
  mkdirSync(path.dirname(cached), { recursive: true });
  const staging = `${cached}.${process.pid}.tmp`;
  try {
    execFileSync('tar', ['-czf', staging, '-C', packageDir, binary]);
    // Put in place whole: an install running meanwhile never reads half a file.
    renameSync(staging, cached);
  } finally {
    rmSync(staging, { force: true });
  }
  console.log(`better-sqlite3 ${pkg.version}: the binary npm ci compiled is kept for the next install (${cached})`);
}
