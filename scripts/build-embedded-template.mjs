// `npm run embedded:template`: makes the embedded database's cluster template for the installed
// PGlite release (see src/infra/database/embedded-template.ts): a new cluster as PGlite's initdb leaves
// it, as a tar compressed with Brotli, in assets/embedded/. Run it after changing PGlite's version,
// and remove the old release's file.
import { PGlite } from '@electric-sql/pglite';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants } from 'node:zlib';
import { pgliteVersion, TEMPLATE_FOLDER, templateFileName } from '../dist/src/infra/database/embedded-template.js';

const db = await PGlite.create();
const tar = Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer());
await db.close();
const compressed = await promisify(brotliCompress)(tar, {
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 11,
    [constants.BROTLI_PARAM_LGWIN]: 24,
    [constants.BROTLI_PARAM_SIZE_HINT]: tar.length,
  },
});
const folder = path.join(import.meta.dirname, '..', TEMPLATE_FOLDER);
await mkdir(folder, { recursive: true });
const file = path.join(folder, templateFileName(pgliteVersion()));
await writeFile(file, compressed);
console.log(`${path.relative(process.cwd(), file)}: ${tar.length} bytes of cluster, ${compressed.length} compressed`);
