import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/infra/database/embedded-postgres.js';
import { pgliteVersion, templatePath } from '../../src/infra/database/embedded-template.js';

async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return rows[0]!.server_version;
  } finally {
    await client.end();
  }
}

describe("the embedded database's cluster template", () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'auth-template-'));
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  it('ships for the PGlite release installed (npm run embedded:template makes it for another)', () => {
    const file = templatePath();
    expect(file).toBeDefined();
    expect(path.basename(file!)).toBe(`pgdata-pglite-${pgliteVersion()}.tar.br`);
    expect(existsSync(file!)).toBe(true);
  });

  it('gives a new data folder its cluster instead of initdb, and a restart finds that cluster', async () => {
    const first = await startEmbeddedPostgres({ dataDir: folder, maxConnections: 2 });
    try {
      expect(first.cluster).toBe('template');
      expect(await serverVersion(first.url)).toMatch(/^\d+\.\d+/);
      const client = new pg.Client({ connectionString: first.url });
      await client.connect();
      await client.query('CREATE TABLE kept (v text)');
      await client.query(`INSERT INTO kept VALUES ('across a restart')`);
      await client.end();
    } finally {
      await first.stop();
    }
    // Unpacked beside the data folder and renamed into place: nothing partial is left.
    expect((await readdir(folder)).filter((name) => name.includes('partial'))).toEqual([]);

    const again = await startEmbeddedPostgres({ dataDir: folder, maxConnections: 2 });
    try {
      expect(again.cluster).toBe('existing');
      const client = new pg.Client({ connectionString: again.url });
      await client.connect();
      const { rows } = await client.query<{ v: string }>('SELECT v FROM kept');
      await client.end();
      expect(rows).toEqual([{ v: 'across a restart' }]);
    } finally {
      await again.stop();
    }
  });

  it('gives a database in memory its cluster too', async () => {
    const embedded = await startEmbeddedPostgres({ maxConnections: 2 });
    try {
      expect(embedded.cluster).toBe('template');
      expect(await serverVersion(embedded.url)).toMatch(/^\d+\.\d+/);
    } finally {
      await embedded.stop();
    }
  });
});
