import { Module } from '@nestjs/common';
import { AssetsModule } from '../assets';
import { FleetModule } from '../fleet';
import { DemoSeeder } from './demo-seeder';
import { RecordImportService } from './record-import.service';

@Module({
  imports: [AssetsModule, FleetModule],
  providers: [RecordImportService, DemoSeeder],
  exports: [RecordImportService],
})
export class ImportModule {}
