// `npm run start:dev`: builds, then keeps two processes running until Ctrl-C: the compiler in watch
// mode (`tsc -b --watch`: it recompiles what a saved file changes) and the service under
// `node --watch`, which restarts it whenever one of the compiled files it loaded changes.
// The Nest CLI's `nest start --watch` would do the same through a dependency this project does not need.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const vite = path.join(path.dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin/vite.js');
const consoleBuild = ['build', '--config', 'src/console/vite.config.mjs'];
const projects = ['packages/nest-guard/tsconfig.build.json', 'tsconfig.build.json'];

// A first build before the service starts; type errors are shown but, as in watch mode, still emit.
spawnSync(process.execPath, [tsc, '-b', ...projects], { stdio: 'inherit' });
spawnSync(process.execPath, [vite, ...consoleBuild], { stdio: 'inherit' });

const children = [
  spawn(process.execPath, [tsc, '-b', '--watch', '--preserveWatchOutput', ...projects], { stdio: 'inherit' }),
  spawn(process.execPath, ['--watch', '--enable-source-maps', 'dist/src/main.js'], { stdio: 'inherit' }),
  // The admin console, rebuilt into dist/console on every saved change; the service reads a new build
  // when the page is next loaded.
  spawn(process.execPath, [vite, ...consoleBuild, '--watch'], { stdio: 'inherit' }),
];

let stopping = false;
function stop(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  process.exitCode = code;
}

// Ctrl-C reaches the children too (one process group); a signal sent to this process alone is passed on.
process.on('SIGINT', () => stop(130));
process.on('SIGTERM', () => stop(143));
// One of them ending (the compiler crashed, the service could not be watched) ends the other.
for (const child of children) child.on('exit', (code) => stop(code ?? 1));
