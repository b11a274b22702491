import { Command, CommandRunner, Option } from 'nest-commander';
import { AccountRecoveryService } from '../account/index.js';

interface EmailOption {
  email: string;
}

function parseEmail(value: string): string {
  return value;
}

/** A refusal (no such account) is a failed command: a message on stderr and a non-zero exit code. */
async function reportingFailure(work: () => Promise<string>): Promise<void> {
  try {
    process.stdout.write(await work());
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}

@Command({ name: 'revoke-sessions', description: 'End every session of the account with this email' })
export class RevokeSessionsCommand extends CommandRunner {
  constructor(private readonly recovery: AccountRecoveryService) {
    super();
  }

  async run(_params: string[], options: EmailOption): Promise<void> {
    await reportingFailure(async () => {
      const { revoked } = await this.recovery.revokeSessions(options.email);
      return `${revoked} session(s) of ${options.email} revoked.\n`;
    });
  }

  @Option({ flags: '--email <email>', description: 'the account', required: true })
  parseEmail(value: string): string {
    return parseEmail(value);
  }
}

@Command({
  name: 'reset-2fa',
  description:
    "Remove the account's authenticator app and recovery codes, and end its sessions (for a locked-out administrator)",
})
export class ResetSecondFactorCommand extends CommandRunner {
  constructor(private readonly recovery: AccountRecoveryService) {
    super();
  }

  async run(_params: string[], options: EmailOption): Promise<void> {
    await reportingFailure(async () => {
      const { removed, revoked } = await this.recovery.resetSecondFactor(options.email);
      return (
        `${removed ? 'Authenticator app and recovery codes removed' : 'No authenticator app was enrolled'} for ${options.email}; ` +
        `${revoked} session(s) revoked.\n`
      );
    });
  }

  @Option({ flags: '--email <email>', description: 'the account', required: true })
  parseEmail(value: string): string {
    return parseEmail(value);
  }
}
