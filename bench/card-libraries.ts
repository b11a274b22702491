/**
 * `npm run bench:card`: the measurements behind docs/decisions/048 (the design card's libraries
 * and what stands in their place), in one run on this machine.
 *
 * - The Argon2id verify time of `argon2` (the card's) and `@node-rs/argon2` (the service's), both
 *   with the service's parameters (m=19456 KiB, t=2, p=1, OWASP's), in alternating rounds in one
 *   process, one verify at a time, each library verifying its own hash and the other's.
 * - Whether each JWT library signs and verifies EdDSA (Ed25519), the service's default
 *   algorithm: `@nestjs/jwt` (on jsonwebtoken, the card's) and `jose` (the service's).
 *
 * Nothing here fails on a figure: it prints, people judge.
 */
import { generateKeyPairSync } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { availableParallelism, cpus } from 'node:os';
import * as cardArgon2 from 'argon2';
import * as nodeRsArgon2 from '@node-rs/argon2';
import { JwtService } from '@nestjs/jwt';
import { SignJWT, importPKCS8, importSPKI, jwtVerify } from 'jose';

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, which isolated builds cannot inline). */
const NODE_RS_ARGON2ID = 2;
const PARAMETERS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };
const ROUNDS = 5;
const VERIFIES_PER_ROUND = 10;
const PASSWORD = 'Plum-Orbit-Lantern-42';

type Verify = (hash: string) => Promise<boolean>;

const libraries: Record<string, { hash: () => Promise<string>; verify: Verify }> = {
  argon2: {
    hash: () => cardArgon2.hash(PASSWORD, { type: cardArgon2.argon2id, ...PARAMETERS }),
    verify: (hash) => cardArgon2.verify(hash, PASSWORD),
  },
  '@node-rs/argon2': {
    hash: () => nodeRsArgon2.hash(PASSWORD, { algorithm: NODE_RS_ARGON2ID, ...PARAMETERS }),
    verify: (hash) => nodeRsArgon2.verify(hash, PASSWORD),
  },
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measureHashing(): Promise<Record<string, { p50: number; mean: number; p90: number }>> {
  const hashes = Object.fromEntries(
    await Promise.all(Object.entries(libraries).map(async ([name, library]) => [name, await library.hash()])),
  ) as Record<string, string>;
  // Each library's hash is a PHC string: each verifies the other's, so the parameters are the same.
  for (const [name, library] of Object.entries(libraries))
    for (const [other, hash] of Object.entries(hashes))
      if (!(await library.verify(hash))) throw new Error(`${name} does not verify a hash of ${other}`);
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(libraries).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so neither always runs on a warmer (or busier) machine.
    const order = round % 2 === 0 ? Object.keys(libraries) : Object.keys(libraries).reverse();
    for (const name of order) {
      for (let i = 0; i < VERIFIES_PER_ROUND; i++) {
        const started = performance.now();
        await libraries[name]!.verify(hashes[name]!);
        times[name]!.push(performance.now() - started);
      }
    }
  }
  return Object.fromEntries(
    Object.entries(times).map(([name, values]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
      const round1 = (value: number) => Math.round(value * 10) / 10;
      return [name, { p50: round1(percentile(sorted, 50)), mean: round1(mean), p90: round1(percentile(sorted, 90)) }];
    }),
  );
}

async function eddsaSupport(): Promise<Record<string, string>> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const answers: Record<string, string> = {};
  try {
    const jwt = new JwtService({});
    const token = jwt.sign({ sub: 'x' }, { privateKey: privatePem, algorithm: 'EdDSA' as never });
    jwt.verify(token, { publicKey: publicPem, algorithms: ['EdDSA' as never] });
    answers['@nestjs/jwt'] = 'signs and verifies EdDSA';
  } catch (error) {
    answers['@nestjs/jwt'] = `refuses EdDSA: ${(error as Error).message}`;
  }
  const token = await new SignJWT({ sub: 'x' })
    .setProtectedHeader({ alg: 'EdDSA' })
    .sign(await importPKCS8(privatePem, 'EdDSA'));
  await jwtVerify(token, await importSPKI(publicPem, 'EdDSA'));
  answers.jose = 'signs and verifies EdDSA';
  return answers;
}

const hashing = await measureHashing();
const eddsa = await eddsaSupport();
console.log(
  `Machine: ${cpus()[0]?.model ?? 'unknown'} (${availableParallelism()} cores), Node ${process.version}; ` +
    `${ROUNDS} alternating rounds of ${VERIFIES_PER_ROUND} verifies each`,
);
console.log('Argon2id verify, m=19456 t=2 p=1, one at a time (ms):');
console.table(hashing);
console.log('EdDSA (Ed25519) tokens:');
console.table(eddsa);
