import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { VARIABLES, type Environment } from './variables.js';

export type { Environment } from './variables.js';

/**
 * The class the declared rules are attached to, whose instances start with every default. Nothing
 * else in the code base reads `process.env`; every variable is declared in variables.ts.
 */
const EnvironmentSchema = class Environment {
  constructor() {
    for (const [name, variable] of Object.entries(VARIABLES)) {
      if (variable.default !== undefined) Object.assign(this, { [name]: variable.default });
    }
  }
};

for (const [name, variable] of Object.entries(VARIABLES)) {
  // Decorators written above a property apply from the bottom up; so do these, so that each
  // variable's messages come in the order they always have.
  for (const rule of [...variable.rules].reverse()) rule(EnvironmentSchema.prototype, name);
}

/** Secrets, and every variable whose name reads like one, are never echoed in a validation message. */
const LOOKS_SECRET = /SECRET|PASSWORD|TOKEN|PRIVATE_KEY|CLIENTS/;
const hidden = new Set(
  Object.entries(VARIABLES)
    .filter(([name, variable]) => ('secret' in variable && variable.secret) || LOOKS_SECRET.test(name))
    .map(([name]) => name),
);

export class InvalidEnvironmentError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'InvalidEnvironmentError';
  }
}

/** Validates a raw environment; the error names every offending variable. */
export function parseEnvironment(raw: Record<string, string | undefined>): Environment {
  const relevant = Object.fromEntries(Object.entries(raw).filter(([key]) => Object.hasOwn(VARIABLES, key)));
  const env = plainToInstance(EnvironmentSchema, relevant, { exposeDefaultValues: true });
  const errors = validateSync(env, { whitelist: true, forbidUnknownValues: true });
  if (errors.length > 0) {
    throw new InvalidEnvironmentError(
      errors.map((error) => {
        const value = hidden.has(error.property) ? '(hidden)' : JSON.stringify(error.value);
        return `${error.property}=${value}: ${Object.values(error.constraints ?? {}).join('; ')}`;
      }),
    );
  }
  return env as unknown as Environment;
}
