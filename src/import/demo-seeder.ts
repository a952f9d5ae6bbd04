import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config';
import demoData from './demo-data.json';
import { RecordImportService } from './record-import.service';

/** Gives a fresh database something to show; never touches one that holds records. */
@Injectable()
export class DemoSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger('Seed');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly importer: RecordImportService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.seedDemo || !(await this.importer.isEmpty())) {
      return;
    }
    const summary = await this.importer.import(demoData);
    this.logger.log(`Seeded demo data: ${summary.vessels.inserted} vessels, ${summary.assets.inserted} assets`);
  }
}
