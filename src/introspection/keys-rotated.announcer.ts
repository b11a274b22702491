import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { SecurityEventsRepository } from '../events/index.js';
import { SigningKeys } from '../sessions/index.js';

/**
 * Keys change with a restart (`rotate-keys`, new variables): the first instance to start with a
 * new signing key tells the event stream's readers (`keys-rotated`), so they fetch the key set
 * again. Best effort: a reader also refetches on a `kid` it does not know.
 */
@Injectable()
export class KeysRotatedAnnouncer implements OnApplicationBootstrap {
  private readonly logger = new Logger('SecurityEvents');

  constructor(
    private readonly keys: SigningKeys,
    private readonly events: SecurityEventsRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      if (await this.events.appendKeysRotatedUnlessTold(this.keys.currentKid))
        this.logger.log('A new signing key: keys-rotated told to the event stream');
    } catch (error) {
      this.logger.warn(`keys-rotated could not be written: ${(error as Error).message}`);
    }
  }
}
