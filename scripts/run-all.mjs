// `npm test`'s tiers: runs `npm run <script>` for each argument, in order, every one of them even
// after a failure (the timing tier is reported after the others, not skipped because of them),
// then exits 1 when any failed, naming which. Plain JavaScript with no dependency.
import { spawnSync } from 'node:child_process';

const scripts = process.argv.slice(2);
const failed = [];
for (const script of scripts) {
  const { status, signal } = spawnSync('npm', ['run', script], { stdio: 'inherit' });
  if (status !== 0) failed.push(`${script} (${signal ?? `exit ${status}`})`);
}
if (failed.length > 0) {
  process.stderr.write(`\nFailed: ${failed.join(', ')}. The other tiers ran to their end.\n`);
  process.exit(1);
}
