import { Module, type DynamicModule } from '@nestjs/common';
import { AuthGuardModule, type AuthGuardModuleOptions } from 'auth-rbac-service';
import { ReportsController } from './reports.controller.js';

@Module({})
export class ConsumerAppModule {
  static register(auth: AuthGuardModuleOptions): DynamicModule {
    return { module: ConsumerAppModule, imports: [AuthGuardModule.forRoot(auth)], controllers: [ReportsController] };
  }
}
