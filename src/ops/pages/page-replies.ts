import type { FastifyReply } from 'fastify';
import type { RouteDoc } from '../../common/route-doc.js';

/** A page: its HTML under its content-security policy (no envelope: a page, not the API). */
export function sendPage(reply: FastifyReply, csp: string, html: string): FastifyReply {
  return reply.header('content-security-policy', csp).type('text/html; charset=utf-8').send(html);
}

/** A page's same-origin script. */
export function sendScript(reply: FastifyReply, script: string): FastifyReply {
  return reply.type('application/javascript; charset=utf-8').send(script);
}

/** A page's style sheet. */
export function sendStyle(reply: FastifyReply, css: string): FastifyReply {
  return reply.type('text/css; charset=utf-8').send(css);
}

/** How a page's script route is documented: `of` names the page ("The reset page's"). */
export function scriptDoc(of: string, description = `${of} script.`): RouteDoc {
  return { summary: `${of} script`, page: { produces: 'application/javascript', description }, noDatabase: true };
}

/** How a page's style-sheet route is documented. */
export function styleDoc(of: string): RouteDoc {
  return {
    summary: `${of} style sheet`,
    page: { produces: 'text/css', description: `${of} style sheet.` },
    noDatabase: true,
  };
}
