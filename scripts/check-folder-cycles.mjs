// No cycle between folders, at any depth: src/a → src/b → src/a is refused even when no two files
// form a cycle (dependency-cruiser's `circular` sees files only). Every import between two files
// of src is lifted to each depth of folders the two files differ at; a strongly connected group of
// folders is a cycle. Run by `npm run lint:deps`.
import { existsSync } from 'node:fs';
import { cruise } from 'dependency-cruiser';

const result = await cruise(['src'], {
  tsPreCompilationDeps: true,
  doNotFollow: { path: 'node_modules' },
  exclude: { path: ['\\.spec\\.ts$', '^src/console/'] },
});

/** The folder edges at `depth`: src/a/b/x.ts at depth 2 is src/a/b. */
function edgesAt(depth) {
  const edges = new Map();
  const folderOf = (file) => {
    const parts = file.split('/').slice(0, -1);
    return parts.length > depth ? parts.slice(0, depth + 1).join('/') : null;
  };
  for (const module of result.output.modules) {
    if (!module.source.startsWith('src/')) continue;
    for (const dependency of module.dependencies) {
      if (!dependency.resolved.startsWith('src/')) continue;
      const from = folderOf(module.source);
      const to = folderOf(dependency.resolved);
      if (!from || !to || from === to) continue;
      // Only folders with the same parent are compared at this depth.
      if (from.split('/').slice(0, -1).join('/') !== to.split('/').slice(0, -1).join('/')) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      const via = edges.get(from).get(to) ?? [];
      via.push(`${module.source} → ${dependency.resolved}`);
      edges.get(from).set(to, via);
    }
  }
  return edges;
}

/** Tarjan's strongly connected components of more than one folder. */
function cycles(edges) {
  let index = 0;
  const stack = [];
  const onStack = new Set();
  const indexOf = new Map();
  const low = new Map();
  const found = [];
  const visit = (node) => {
    indexOf.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), indexOf.get(next)));
    }
    if (low.get(node) === indexOf.get(node)) {
      const group = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) found.push(group);
    }
  };
  for (const node of edges.keys()) if (!indexOf.has(node)) visit(node);
  return found;
}

let failed = false;
for (let depth = 1; depth <= 4; depth++) {
  const edges = edgesAt(depth);
  for (const group of cycles(edges)) {
    failed = true;
    console.error(`folder cycle: ${group.join(' ⇄ ')}`);
    for (const from of group)
      for (const [to, via] of edges.get(from) ?? [])
        if (group.includes(to)) console.error(`  ${from} → ${to}: ${via.slice(0, 3).join(', ')}`);
  }
}
// The console is a separate front-end build outside the rooms (and so outside dependency-cruiser's
// rules); it keeps the one rule that applies to any code: no cycle between its files.
if (existsSync('src/console/src')) {
  const front = await cruise(['src/console/src'], {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
  });
  for (const module of front.output.modules)
    for (const dependency of module.dependencies)
      if (dependency.circular) {
        failed = true;
        console.error(`file cycle in the console: ${module.source} → ${dependency.resolved}`);
      }
}

if (failed) process.exit(1);
console.log('no cycle between folders, nor between files of the console');
