import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DEMO_SEED_CONFIG, type DemoSeedConfig } from '../config';
import demoData from './demo-data.json';
import { RecordImportService } from './record-import.service';

/** Gives a fresh database something to show; never touches one that holds records. */
@Injectable()
export class DemoSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger('Seed');

  constructor(
    @Inject(DEMO_SEED_CONFIG) private readonly config: DemoSeedConfig,
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
