import { Module } from '@nestjs/common';
import { AssetsModule } from '../assets';
import { FleetModule } from '../fleet';
import { DemoSeeder } from './demo-seeder';
import { RecordExportService } from './record-export.service';
import { RecordImportService } from './record-import.service';

@Module({
  imports: [AssetsModule, FleetModule],
  providers: [RecordImportService, RecordExportService, DemoSeeder],
  exports: [RecordImportService, RecordExportService],
})
export class ImportModule {}
