import { Global, Module } from '@nestjs/common';
import { DataKeyRing } from './data-key-ring.js';

/** The data key ring, one instance for the whole application (and the CLI). */
@Global()
@Module({ providers: [DataKeyRing], exports: [DataKeyRing] })
export class KeysModule {}
