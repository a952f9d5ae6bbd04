import { Module } from '@nestjs/common';
import { AuditModule } from '../audit';
import { MetricsModule } from '../observability';
import { AssetsController } from './assets.controller';
import { AssetsRepository } from './assets.repository';
import { AssetsService } from './assets.service';

@Module({
  imports: [AuditModule, MetricsModule],
  controllers: [AssetsController],
  providers: [AssetsRepository, AssetsService],
  exports: [AssetsRepository],
})
export class AssetsModule {}
