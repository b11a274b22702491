import { Module } from '@nestjs/common';
import { ClientsRepository } from './clients.repository.js';
import { ClientsService } from './clients.service.js';

/** The one client registry (`service_clients`): services of the token endpoint and applications that sign people in. */
@Module({
  providers: [ClientsRepository, ClientsService],
  exports: [ClientsService],
})
export class ClientsModule {}
