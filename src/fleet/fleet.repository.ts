import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import { countRows, type DB, readInKeyOrder, type Sector, selectPage, upsertRows, type UpsertCounts, type VesselRow } from '../database';

/** What the API shows of a vessel, in the order it shows it. */
export const VESSEL_COLUMNS = ['id', 'name', 'class', 'length', 'crew', 'commander', 'sector', 'status'] as const;

@Injectable()
export class FleetRepository {
  constructor(private readonly db: Kysely<DB>) {}

  findPage(sector: Sector | undefined, limit: number, offset: number) {
    const vessels = sector ? this.db.selectFrom('vessels').where('sector', '=', sector) : this.db.selectFrom('vessels');
    return selectPage(vessels, (query) => query.select(VESSEL_COLUMNS).orderBy('id'), { limit, offset });
  }

  /** Every record in id order, a batch at a time, for the export. */
  readAll(): AsyncGenerator<VesselRow[]> {
    return readInKeyOrder(this.db, 'vessels', 'id', VESSEL_COLUMNS) as AsyncGenerator<VesselRow[]>;
  }

  count(): Promise<number> {
    return countRows(this.db, 'vessels');
  }

  upsertMany(vessels: VesselRow[], executor: Kysely<DB> = this.db): Promise<UpsertCounts> {
    return upsertRows(executor, 'vessels', 'id', vessels);
  }
}
