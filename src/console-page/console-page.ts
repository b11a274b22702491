import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONSOLE_PATH = 'admin';

/**
 * The console is files of this origin only: its script and styles, the REST API it calls. Nothing
 * inline, nothing from another origin, never framed.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Built files are named by their content's hash: a browser may keep them for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

interface BuiltConsole {
  page: Buffer;
  assets: Map<string, { body: Buffer; type: string }>;
}

/**
 * The folder `npm run build` writes the console into (`dist/console`), from `src/console-page`
 * (tests) and from `dist/src/console-page` (the build) alike; undefined when it was not built.
 */
function builtConsoleFolder(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'dist', 'console');
    if (existsSync(path.join(candidate, 'index.html'))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

async function loadConsole(): Promise<BuiltConsole | null> {
  const folder = builtConsoleFolder();
  if (!folder) return null;
  const assets = new Map<string, { body: Buffer; type: string }>();
  const assetFolder = path.join(folder, 'assets');
  const names = existsSync(assetFolder) ? await readdir(assetFolder) : [];
  for (const name of names) {
    const type = TYPES[path.extname(name)];
    if (type) assets.set(name, { body: await readFile(path.join(assetFolder, name)), type });
  }
  return { page: await readFile(path.join(folder, 'index.html')), assets };
}

const notFound = (reply: FastifyReply, message: string) =>
  reply.code(404).send({ success: false, error: { code: 'NOT_FOUND', message } });

/**
 * Serves the admin console (src/console, built by Vite) at `/admin`: the page and its hashed
 * assets, read once from `dist/console` and kept in memory. The console uses the public REST API
 * with the signed-in administrator's cookies; it holds no privilege of its own.
 */
export function setUpConsole(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  let built: Promise<BuiltConsole | null> | undefined;
  const files = () => (built ??= loadConsole());

  const page = async (_request: unknown, reply: FastifyReply) => {
    const served = await files();
    if (!served) return notFound(reply, 'The admin console has not been built: run npm run build.');
    return reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(served.page);
  };
  fastify.get(`/${CONSOLE_PATH}`, page);
  fastify.get(`/${CONSOLE_PATH}/`, page);
  fastify.get<{ Params: { file: string } }>(`/${CONSOLE_PATH}/assets/:file`, async (request, reply) => {
    const asset = (await files())?.assets.get(request.params.file);
    if (!asset) return notFound(reply, 'No such file.');
    return reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('cache-control', IMMUTABLE)
      .type(asset.type)
      .send(asset.body);
  });
}
