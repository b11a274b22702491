import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** Envelope recipients, lower-cased. */
  to: string[];
  raw: string;
  /** The decoded text/plain part. */
  text: string;
}

/**
 * A real SMTP server on a loopback port that keeps every message it receives, so tests can read
 * the mails the service sends exactly as a mail client would receive them.
 */
export class SmtpSink {
  readonly mails: ReceivedMail[] = [];
  private waiters: (() => void)[] = [];

  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  static async start(): Promise<SmtpSink> {
    const server = new SMTPServer({
      authOptional: true,
      // Plain SMTP on loopback: nodemailer would otherwise try to upgrade to TLS.
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const to = session.envelope.rcptTo.map((address) => address.address.toLowerCase());
          sink.receive({ to, raw, text: plainTextOf(raw) });
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (server.server.address() as AddressInfo).port;
    const sink = new SmtpSink(server, port);
    return sink;
  }

  /** The service's SMTP_URL for this sink. */
  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /**
   * The mails to `address`, but the verification link every registration mails: tests of other
   * mails look past it (`verificationMailsTo` lists those).
   */
  mailsTo(address: string): ReceivedMail[] {
    return this.allMailsTo(address).filter((mail) => !isVerificationMail(mail));
  }

  verificationMailsTo(address: string): ReceivedMail[] {
    return this.allMailsTo(address).filter(isVerificationMail);
  }

  allMailsTo(address: string): ReceivedMail[] {
    return this.mails.filter((mail) => mail.to.includes(address.toLowerCase()));
  }

  /** Resolves with the `count`-th mail to `address` (1-based, as `mailsTo` counts), waiting for it to arrive. */
  waitForMail(address: string, count = 1, timeoutMs = 15_000): Promise<ReceivedMail> {
    return this.waitFor(() => this.mailsTo(address), `mail #${count} to ${address}`, count, timeoutMs);
  }

  /** Resolves with the `count`-th verification mail to `address`. */
  waitForVerificationMail(address: string, count = 1, timeoutMs = 15_000): Promise<ReceivedMail> {
    return this.waitFor(
      () => this.verificationMailsTo(address),
      `verification mail #${count} to ${address}`,
      count,
      timeoutMs,
    );
  }

  private async waitFor(
    list: () => ReceivedMail[],
    what: string,
    count: number,
    timeoutMs: number,
  ): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const mails = list();
      if (mails.length >= count) return mails[count - 1];
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`no ${what} arrived (have ${mails.length})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private receive(mail: ReceivedMail): void {
    this.mails.push(mail);
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

function isVerificationMail(mail: ReceivedMail): boolean {
  return /^Subject: Verify your email address/im.test(mail.raw);
}

/** The reset token out of a reset mail's `${APP_URL}/reset-password?token=...` link. */
export function resetTokenFrom(mail: ReceivedMail, appUrl: string): string {
  const escaped = appUrl.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const match = new RegExp(`${escaped}/reset-password\\?token=([A-Za-z0-9_-]+)`).exec(mail.text);
  if (!match) throw new Error(`no reset link in the mail:\n${mail.text}`);
  return match[1];
}

/** The decoded text/plain part of a raw MIME message (single part or multipart). */
export function plainTextOf(raw: string): string {
  const { headers, body } = splitEntity(raw);
  const contentType = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (/^multipart\//i.test(contentType) && boundary) {
    for (const part of body.split(`--${boundary}`).slice(1)) {
      if (part.startsWith('--')) break;
      const text = plainTextOf(part.replace(/^\r?\n/, ''));
      if (text) return text;
    }
    return '';
  }
  if (!/^text\/plain/i.test(contentType)) return '';
  return decodeBody(body, headers['content-transfer-encoding'] ?? '7bit');
}

function splitEntity(raw: string): { headers: Record<string, string>; body: string } {
  const separator = /\r?\n\r?\n/.exec(raw);
  const head = separator ? raw.slice(0, separator.index) : raw;
  const body = separator ? raw.slice(separator.index + separator[0].length) : '';
  const headers: Record<string, string> = {};
  // Folded header lines continue with whitespace.
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function decodeBody(body: string, encoding: string): string {
  switch (encoding.toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable': {
      const bytes = body
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-Fa-f]{2})/g, (_all, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      return Buffer.from(bytes, 'latin1').toString('utf8');
    }
    default:
      return body;
  }
}
