import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import { countRows, type DB, type Page, type Sector, selectPage, upsertRows, type VesselRow } from '../database';

@Injectable()
export class FleetRepository {
  constructor(private readonly db: Kysely<DB>) {}

  findPage(sector: Sector | undefined, limit: number, offset: number): Promise<Page<VesselRow>> {
    const vessels = sector ? this.db.selectFrom('vessels').where('sector', '=', sector) : this.db.selectFrom('vessels');
    return selectPage(vessels, (query) => query.selectAll().orderBy('id'), { limit, offset });
  }

  count(): Promise<number> {
    return countRows(this.db, 'vessels');
  }

  upsertMany(vessels: VesselRow[], executor: Kysely<DB> = this.db): Promise<void> {
    return upsertRows(executor, 'vessels', 'id', vessels);
  }
}
