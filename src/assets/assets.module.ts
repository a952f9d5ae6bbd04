import { Module } from '@nestjs/common';
import { AuditModule } from '../audit';
import { IdempotencyModule } from '../idempotency';
import { MetricsModule } from '../observability';
import { AssetsController } from './assets.controller';
import { AssetsRepository } from './assets.repository';
import { AssetsService } from './assets.service';
import { DecommissionPolicy } from './decommission-policy';
import { DecommissionPolicyRepository } from './decommission-policy.repository';
import { DecommissionRequestsController } from './decommission-requests.controller';
import { DecommissionRequestsRepository } from './decommission-requests.repository';
import { DecommissionRequestsService } from './decommission-requests.service';

@Module({
  imports: [AuditModule, IdempotencyModule, MetricsModule],
  controllers: [AssetsController, DecommissionRequestsController],
  providers: [AssetsRepository, AssetsService, DecommissionPolicy, DecommissionPolicyRepository, DecommissionRequestsRepository, DecommissionRequestsService],
  exports: [AssetsRepository],
})
export class AssetsModule {}
