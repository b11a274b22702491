'use strict';
/**
 * Jest transform for CommonJS packages that `require()` an ES module (e.g. @nestjs/throttler,
 * which requires the ESM-only @nestjs/common of Nest 12). Node loads them natively; Jest's own
 * module system cannot (on Node 24 it supports require() of an ES module, but refuses @nestjs/core
 * from throttler's guard as a require "in a cycle"). This rewrites such a file as an
 * ES module: its requires become imports, its body runs unchanged in a CommonJS-shaped scope,
 * and its exports are re-exported by name. Jest then loads it through its ESM loader.
 * Only the packages named in jest.config.mjs go through it; the service's runtime never does.
 */
const { createHash } = require('node:crypto');
const { createRequire } = require('node:module');

// Jest's own CommonJS lexer (the one Node uses for named exports of CommonJS modules).
const lexer = createRequire(require.resolve('jest-runtime'))('cjs-module-lexer');

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const REQUIRE_CALL = /\brequire\((["'])([^"']+)\1\)/g;

function toEsm(source) {
  const { exports, reexports } = lexer.parse(source);
  const specifiers = [...new Set([...source.matchAll(REQUIRE_CALL)].map((match) => match[2]))];
  const names = exports.filter((name) => IDENTIFIER.test(name) && name !== 'default' && name !== '__esModule');
  return [
    ...specifiers.map((specifier, i) => `import * as __cjs_dep${i} from ${JSON.stringify(specifier)};`),
    `const __cjs_deps = { ${specifiers.map((specifier, i) => `${JSON.stringify(specifier)}: __cjs_dep${i}`).join(', ')} };`,
    `const __cjs_require = (id) => {`,
    `  if (!(id in __cjs_deps)) throw new Error('cjs-to-esm: unexpected require(' + JSON.stringify(id) + ')');`,
    `  const ns = __cjs_deps[id];`,
    // A converted CommonJS module's namespace holds `default` = its module.exports: hand that back.
    `  return ns.__cjsModule === true ? ns.default : ns;`,
    `};`,
    `const __cjs_module = { exports: {} };`,
    `(function (exports, require, module) {`,
    source,
    `}).call(__cjs_module.exports, __cjs_module.exports, __cjs_require, __cjs_module);`,
    `export default __cjs_module.exports;`,
    `export const __cjsModule = true;`,
    ...(names.length ? [`export const { ${names.join(', ')} } = __cjs_module.exports;`] : []),
    ...reexports.map((specifier) => `export * from ${JSON.stringify(specifier)};`),
  ].join('\n');
}

module.exports = {
  process(source) {
    return { code: toEsm(source) };
  },
  processAsync(source) {
    return Promise.resolve({ code: toEsm(source) });
  },
  getCacheKey(source, filename) {
    return createHash('sha256').update('cjs-to-esm v1\0').update(filename).update('\0').update(source).digest('hex');
  },
};
