import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TOTP, URI } from 'otpauth';
import { startService, type RunningService } from '../support/service-process.js';
import { createDatabase, type TestDatabase } from '../support/test-database.js';

const README = path.resolve(import.meta.dirname, '../../README.md');

/** The README's "First calls" block: its commands, a backslash-continued command joined into one. */
function firstCalls(): string[] {
  const readme = readFileSync(README, 'utf8');
  const section = readme.slice(readme.indexOf('\n## First calls\n'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('the README has no "First calls" block');
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

/** A line the reader fills in (`NAME='...'  # ...`): the test gives the value instead. */
const FILL_IN = /^(BASE|ADMIN_PASSWORD|SMS_CODE|TOTP_CODE)=/;

/** One bash, fed one command at a time, so the block's variables live from line to line as in a terminal. */
class Shell {
  private readonly bash: ChildProcessWithoutNullStreams;
  private output = '';

  constructor(env: Record<string, string>) {
    this.bash = spawn('bash', ['--noprofile', '--norc'], { env, stdio: 'pipe' });
    this.bash.stdout.on('data', (chunk) => (this.output += chunk));
    this.bash.stderr.on('data', (chunk) => (this.output += chunk));
  }

  /** Runs one command; resolves with what it printed and its exit status. */
  async run(command: string): Promise<{ printed: string; status: number }> {
    const marker = `__done_${Math.random().toString(36).slice(2)}__`;
    this.output = '';
    this.bash.stdin.write(`${command}\necho "${marker}$?"\n`);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const match = new RegExp(`${marker}(\\d+)\\n`).exec(this.output);
      if (match) return { printed: this.output.slice(0, match.index), status: Number(match[1]) };
      if (Date.now() > deadline) throw new Error(`no end of: ${command}\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async value(name: string): Promise<string> {
    return (await this.run(`printf '%s' "$${name}"`)).printed;
  }

  close(): void {
    this.bash.stdin.end();
    this.bash.kill();
  }
}

describe('the README\'s "First calls", pasted into a shell against a started service', () => {
  let database: TestDatabase;
  let cwd: string;
  let service: RunningService;

  beforeAll(async () => {
    // Migrated, never seeded: the service seeds it at start and prints the passwords, as on a first start.
    database = await createDatabase('migrated');
    cwd = mkdtempSync(path.join(tmpdir(), 'auth-first-calls-'));
    service = await startService(cwd, {
      DATABASE_URL: database.url,
      DATA_DIR: path.join(cwd, 'data'),
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_ITERATIONS: '1',
    });
  });
  afterAll(async () => {
    await service?.stop();
    await database.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('signs in, refreshes, creates and assigns a role, and passes the second factor by sms, totp and recovery', async () => {
    const output = () => service.output();
    const adminPassword = /admin\s+admin@example\.com\s+password: (\S+)/.exec(output())?.[1];
    expect(adminPassword).toBeDefined();
    let lastPrinted = '';
    let lastTotp = '';
    let totp: TOTP | undefined;

    /** The value the reader would type for a fill-in line, from what a person would look at. */
    const fillIn = async (name: string): Promise<string> => {
      if (name === 'BASE') return service.baseUrl;
      if (name === 'ADMIN_PASSWORD') return adminPassword!;
      if (name === 'SMS_CODE') {
        const deadline = Date.now() + 10_000;
        let codes: string[] = [];
        while (codes.length === 0 && Date.now() < deadline) {
          codes = [...output().matchAll(/SMS to \+4917612345678: [^"]*?\b(\d{6})\b/g)].map((match) => match[1]!);
          if (codes.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(codes.length).toBeGreaterThan(0);
        return codes.at(-1)!;
      }
      // TOTP_CODE: from the app that holds the secret of the last otpauth URI printed.
      const uri = /otpauth:\/\/\S+/.exec(lastPrinted)?.[0];
      if (uri) totp = URI.parse(uri) as TOTP;
      if (!totp) throw new Error('no otpauth URI was printed before a TOTP code was asked for');
      // Each code is accepted once: wait for the app's next one when it still shows the last.
      let code = totp.generate();
      while (code === lastTotp) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        code = totp.generate();
      }
      lastTotp = code;
      return code;
    };

    const shell = new Shell({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd });
    try {
      const commands = firstCalls();
      expect(commands.length).toBeGreaterThan(15);
      for (const command of commands) {
        const fill = FILL_IN.exec(command);
        const line = fill ? `${fill[1]}='${await fillIn(fill[1]!)}'` : command;
        const { printed, status } = await shell.run(line);
        expect([command, status]).toEqual([command, 0]);
        if (printed.trim() !== '') lastPrinted = printed;
        // What a command prints is the service's answer: a success envelope, or a field of one.
        if (printed.trim().startsWith('{')) expect([command, JSON.parse(printed).success]).toEqual([command, true]);
        // What a command keeps in a variable is a real value, not jq's `null` of a failed call.
        const assigned = /^(\w+)=\$\(/.exec(command)?.[1];
        for (const name of assigned ? [assigned] : []) {
          expect([command, await shell.value(name)]).not.toEqual([command, expect.stringMatching(/^(null|)$/)]);
        }
        if (command.includes('"method\\": \\"recovery')) {
          expect(JSON.parse(printed).data).toEqual(expect.objectContaining({ access_token: expect.any(String) }));
        }
      }
      expect(output()).toContain('SMS to +4917612345678');
    } finally {
      shell.close();
    }
  }, 120_000);
});
