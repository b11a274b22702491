import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseDocument } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Dockerfile instructions, continuation lines joined, comments dropped, per build stage. */
function instructions(dockerfile: string): { stage: string; op: string; args: string }[] {
  const joined = dockerfile.replace(/\\\n\s*/g, ' ');
  const result: { stage: string; op: string; args: string }[] = [];
  let stage = '';
  for (const line of joined.split('\n')) {
    const match = /^([A-Z]+)\s+(.*)$/.exec(line.trim());
    if (!match) continue;
    const [, op, args] = match as unknown as [string, string, string];
    if (op === 'FROM') stage = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? args;
    result.push({ stage, op, args });
  }
  return result;
}

describe('Dockerfile', () => {
  const steps = instructions(read('Dockerfile'));
  const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string>; workspaces?: string[] };
  const tsconfig = JSON.parse(read('tsconfig.json').replace(/\/\/.*$/gm, '')) as {
    compilerOptions: { outDir: string };
  };
  const runtime = steps.filter((step) => step.stage === 'runtime');

  it('builds and runs on node:24-slim, as a non-root user, with a volume for DATA_DIR', () => {
    expect(steps.filter((step) => step.op === 'FROM').map((step) => step.args.split(/\s+/)[0])).toEqual([
      'node:24-slim',
      'node:24-slim',
    ]);
    const user = runtime.filter((step) => step.op === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    const dataDir = /DATA_DIR=(\S+)/.exec(runtime.find((step) => step.op === 'ENV')!.args)?.[1];
    expect(dataDir).toBeDefined();
    expect(runtime.find((step) => step.op === 'VOLUME')?.args).toBe(`["${dataDir}"]`);
    expect(runtime.some((step) => step.op === 'RUN' && step.args.includes(`chown node:node ${dataDir}`))).toBe(true);
  });

  it('copies files that exist and builds with the package script', () => {
    for (const step of steps.filter((s) => s.op === 'COPY' && !s.args.startsWith('--from'))) {
      const sources = step.args.split(/\s+/).slice(0, -1);
      for (const source of sources)
        expect({ source, exists: existsSync(path.join(ROOT, source)) }).toEqual({ source, exists: true });
    }
    const build = steps.find((step) => step.stage === 'build' && step.op === 'RUN' && step.args.startsWith('npm run '));
    expect(build?.args).toBe('npm run build');
    expect(pkg.scripts.build).toMatch(/^tsc -b .*\btsconfig\.build\.json && npm run build:console$/);
    // The admin console (src/, copied whole) is built into the output folder the runtime takes.
    expect(read('src/console/vite.config.mjs')).toContain(`'../../${tsconfig.compilerOptions.outDir}/console'`);
    // What the build stage produces is what the runtime stage takes: the service's output and
    // that of every workspace package the build script builds (the service imports them).
    const taken = runtime
      .filter((step) => step.op === 'COPY' && step.args.startsWith('--from=build'))
      .map((step) => step.args);
    expect(taken).toContain(
      `--from=build /app/${tsconfig.compilerOptions.outDir} ./${tsconfig.compilerOptions.outDir}`,
    );
    for (const workspace of pkg.workspaces ?? []) {
      const workspacePkg = JSON.parse(read(`${workspace}/package.json`)) as { name: string; main: string };
      expect(pkg.scripts.build).toContain(`${workspace}/tsconfig.build.json`);
      const outDir = path.dirname(path.normalize(workspacePkg.main));
      expect(taken).toContain(`--from=build /app/${workspace}/${outDir} ./${workspace}/${outDir}`);
      // npm ci installs workspaces: their package.json files must be there first, in both stages.
      expect(
        steps.filter((step) => step.op === 'COPY' && step.args === `${workspace}/package.json ./${workspace}/`),
      ).toHaveLength(2);
    }
  });

  it('listens on every interface in the image (HOST), since a container is reached from outside it', () => {
    const env = runtime.filter((step) => step.op === 'ENV').map((step) => step.args);
    expect(env.join(' ')).toMatch(/(^|\s)HOST=0\.0\.0\.0(\s|$)/);
  });

  it('starts the way start:prod does, and its admin commands need no compiler', () => {
    const cmd = JSON.parse(runtime.find((step) => step.op === 'CMD')!.args) as string[];
    expect(cmd.join(' ')).toBe(pkg.scripts['start:prod']);
    expect(
      existsSync(
        path.join(
          ROOT,
          cmd.find((arg) => arg.endsWith('.js'))!,
        ),
      ),
    ).toBe(true);
    // `npm run cli` runs the compiled CLI directly: no `npm run build` (TypeScript is not in the image).
    expect(pkg.scripts.cli).toBe('node dist/src/cli/main.js');
    expect(existsSync(path.join(ROOT, 'dist/src/cli/main.js'))).toBe(true);
  });
});

describe('npm start', () => {
  const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

  it('builds, then replaces its shell with the service (exec): no npm process stays beside it', () => {
    expect(pkg.scripts.start).toBe(`npm run build && exec ${pkg.scripts['start:prod']}`);
  });

  it('commits no npm cache or update-notifier state', () => {
    const tracked = execFileSync('git', ['ls-files', '.npm'], { cwd: ROOT, encoding: 'utf8' });
    expect(tracked).toBe('');
    expect(read('.gitignore').split('\n')).toContain('.npm/');
  });
});

describe('docker-compose.yml', () => {
  const text = read('docker-compose.yml');
  // Compose applies YAML merge keys (`<<: *auth-env`).
  const compose = parse(text, { merge: true }) as {
    services: Record<
      string,
      {
        build?: string;
        image?: string;
        command?: string[];
        environment?: Record<string, string>;
        depends_on?: Record<string, unknown> | string[];
        volumes?: string[];
        ports?: string[];
      }
    >;
  };
  const instances = ['auth-1', 'auth-2'];

  it('is valid YAML', () => {
    expect(parseDocument(text).errors).toEqual([]);
  });

  it('starts with `docker compose up` and nothing else: no variable is required', () => {
    // `${NAME:?message}` and `${NAME?message}` stop `docker compose up` until NAME is set.
    expect(text.match(/\$\{[A-Z_]+:?\?[^}]*\}/g) ?? []).toEqual([]);
  });

  it('runs PostgreSQL, Redis, a setup once, and two instances of the image behind a proxy', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['auth-1', 'auth-2', 'postgres', 'proxy', 'redis', 'setup']);
    expect(compose.services.postgres!.image).toMatch(/^postgres:/);
    expect(compose.services.redis!.image).toMatch(/^redis:/);
    for (const name of ['setup', ...instances]) {
      expect(compose.services[name]!.environment).toMatchObject({
        APP_ENV: 'production',
        DATABASE_URL: expect.stringMatching(/@postgres:5432\//),
        REDIS_URL: 'redis://redis:6379',
        TRUST_PROXY: '1',
        DB_MIGRATIONS_RUN: 'false',
      });
    }
    for (const name of instances) {
      expect(compose.services[name]!.depends_on).toMatchObject({
        setup: { condition: 'service_completed_successfully' },
      });
    }
  });

  it('builds the image once: one service builds it, the others run it by name', () => {
    const building = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);
    expect(building.map(([name]) => name)).toEqual(['setup']);
    const image = compose.services.setup!.image;
    expect(image).toEqual(expect.any(String));
    for (const name of instances) expect(compose.services[name]!.image).toBe(image);
  });

  it('keeps SMS off unless configured: mobile sign-in off, and never the log transport', () => {
    for (const name of ['setup', ...instances]) {
      const env = compose.services[name]!.environment!;
      expect(env.AUTH_MOBILE_OTP).toBe('${AUTH_MOBILE_OTP:-false}');
      expect(env.SMS_TRANSPORT).not.toBe('log');
      expect(env.SMS_WEBHOOK_URL).toMatch(/^\$\{SMS_WEBHOOK_URL:-http:\/\/127\.0\.0\.1:\d+\//);
    }
  });

  it('seeds an administrator from variables, after the migrations, and shares one JWT secret', () => {
    const setup = compose.services.setup!;
    expect(setup.environment).toMatchObject({
      SEED_ADMIN_EMAIL: '${SEED_ADMIN_EMAIL:-admin@example.com}',
      SEED_ADMIN_PASSWORD: '${SEED_ADMIN_PASSWORD:-}',
    });
    const script = setup.command!.join(' ');
    expect(script.indexOf('main.js migrate')).toBeGreaterThan(0);
    expect(script.indexOf('main.js seed')).toBeGreaterThan(script.indexOf('main.js migrate'));
    // The secret file lives in a volume every instance mounts.
    const dataVolume = setup.volumes!.find((volume) => volume.endsWith(':/var/lib/auth'))!.split(':')[0];
    for (const name of instances) {
      expect(compose.services[name]!.volumes).toContain(`${dataVolume}:/var/lib/auth:ro`);
      expect(compose.services[name]!.command!.join(' ')).toContain('cat /var/lib/auth/jwt-secret');
    }
  });

  it('serves the way start:prod does', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    for (const name of instances) {
      expect(compose.services[name]!.command!.join(' ')).toContain(`exec ${pkg.scripts['start:prod']}`);
    }
  });

  it('points the proxy at both instances', () => {
    const mount = compose.services.proxy!.volumes!.find((volume) => volume.startsWith('./'))!;
    const conf = read(mount.split(':')[0]!);
    expect(conf).toMatch(/server auth-1:3000;/);
    expect(conf).toMatch(/server auth-2:3000;/);
    expect(conf).toContain('X-Forwarded-For');
  });
});
