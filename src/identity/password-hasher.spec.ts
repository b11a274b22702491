import 'reflect-metadata';
import type { AppConfig } from '../config/app-config.js';
import { PasswordHasher } from './password-hasher.js';

const hasherFor = (concurrency: number) =>
  new PasswordHasher({
    passwordHashing: { memoryKib: 1024, iterations: 1, parallelism: 1, concurrency },
  } as AppConfig);

describe('the password hasher', () => {
  it('runs at most ARGON2_CONCURRENCY hashes at once; the others wait their turn', async () => {
    const hasher = hasherFor(2);
    const hashes = Array.from({ length: 5 }, (_, i) => hasher.hash(`password-${i}`));
    await Promise.resolve();
    expect(hasher.load).toEqual({ active: 2, waiting: 3 });
    const results = await Promise.all(hashes);
    expect(new Set(results).size).toBe(5);
    expect(hasher.load).toEqual({ active: 0, waiting: 0 });
  });

  it('verifies through the same queue, and still tells a right password from a wrong one', async () => {
    const hasher = hasherFor(1);
    const stored = await hasher.hash('correct horse battery staple');
    const checks = [hasher.verify(stored, 'correct horse battery staple'), hasher.verify(stored, 'wrong')];
    await Promise.resolve();
    expect(hasher.load).toEqual({ active: 1, waiting: 1 });
    expect(await Promise.all(checks)).toEqual([true, false]);
  });
});
