import { Controller, Get, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '@auth-rbac/nest-guard';
import { AppException } from '../../common/app-exception.js';
import { ConsoleFiles } from './console-files.js';
import { DocumentRoute } from '../../common/route-doc.js';

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

/** Built files are named by their content's hash: a browser may keep them for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The admin console at `/admin`: the page and its assets, no envelope. The console uses the
 * public REST API with the signed-in administrator's cookies; it holds no privilege of its own.
 */
@Public()
@Controller('admin')
export class ConsolePageController {
  constructor(private readonly files: ConsoleFiles) {}

  @Get()
  @DocumentRoute({
    summary: 'The admin console (single-page app)',
    page: {
      produces: 'text/html',
      description: 'The admin console (a single-page app on the public REST API).',
      notFound: 'NOT_FOUND: the console has not been built (`npm run build`).',
    },
    noDatabase: true,
  })
  async page(@Res() reply: FastifyReply): Promise<FastifyReply> {
    const built = await this.files.forPage();
    if (!built) throw new AppException('NOT_FOUND', 'The admin console has not been built: run npm run build.');
    return reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(built.page);
  }

  @Get('assets/:file')
  @DocumentRoute({
    summary: "A file of the admin console's build",
    page: {
      produces: '*/*',
      description: "A file of the admin console's build (script, style sheet), named by its content's hash.",
      notFound: 'NOT_FOUND: no such file in the build.',
    },
    noDatabase: true,
  })
  async asset(@Param('file') file: string, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const asset = (await this.files.get())?.assets.get(file);
    if (!asset) throw new AppException('NOT_FOUND', 'No such file.');
    return reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('cache-control', IMMUTABLE)
      .type(asset.type)
      .send(asset.body);
  }
}
