// Run by npm before `start` and `test` (prestart, pretest): an older Node would build and start a
// service whose every sign-in fails (jose needs KeyObject.toCryptoKey, Node 22.12+). One line, at
// once, saying what to run. Plain JavaScript with no dependency, so any Node can run it.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `Node ${process.versions.node} is too old (this service needs 22.12 or newer): run \`source scripts/use-node.sh\` in this shell, then the same npm command again.\n`,
  );
  process.exit(1);
}
