import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import { ALL_SECTORS, countRows, type DB, readInKeyOrder, type Sector, upsertRows, type UpsertCounts, type VesselRow } from '../database';

/** What the API shows of a vessel, in the order it shows it. */
export const VESSEL_COLUMNS = ['id', 'name', 'class', 'length', 'crew', 'commander', 'sector', 'status'] as const;

/** Where a page starts: after a vessel id (keyset), or a number of vessels into the list. */
export type PageStart = { after: string } | { offset: number };

export interface FleetState {
  /** Raised by every committed write to the vessels, on whichever instance. */
  version: string;
  /** The vessels of the sector, or of the fleet, as the triggers keep count. */
  total: number;
}

/**
 * The data version and the count, two primary-key reads in one statement: no COUNT(*); as scalar
 * subqueries, which SQLite runs in under half the time of the same reads written as a join.
 */
function compiledStateQuery(db: Kysely<DB>, sector: string) {
  return db
    .selectNoFrom((eb) => [
      eb.selectFrom('vessel_data_version').select('version').where('id', '=', eb.lit(1)).as('version'),
      eb.fn.coalesce(eb.selectFrom('vessel_counts').select('vessel_count').where('sector', '=', sector), eb.lit(0)).as('total'),
    ])
    .compile();
}

@Injectable()
export class FleetRepository {
  /**
   * The state query of the fleet and of each sector (five in all), built and compiled once each: built and
   * compiled on every listing, it cost a listing about a third more server CPU on Node 26 (docs/performance.md).
   */
  private readonly stateQueries = new Map<string, ReturnType<typeof compiledStateQuery>>();

  constructor(private readonly db: Kysely<DB>) {}

  async readState(sector: Sector | undefined): Promise<FleetState> {
    const key = sector ?? ALL_SECTORS;
    let query = this.stateQueries.get(key);
    if (query === undefined) {
      query = compiledStateQuery(this.db, key);
      this.stateQueries.set(key, query);
    }
    const [state] = (await this.db.executeQuery(query)).rows;
    if (state?.version == null) {
      throw new Error('vessel_data_version has no row');
    }
    return { version: String(state.version), total: Number(state.total) };
  }

  /** Vessels in id order. A keyset start seeks in the primary key, or in the (sector, id) index, so any depth costs what the first page does. */
  findPage(sector: Sector | undefined, limit: number, start: PageStart): Promise<Pick<VesselRow, (typeof VESSEL_COLUMNS)[number]>[]> {
    let vessels = this.db.selectFrom('vessels').select(VESSEL_COLUMNS).orderBy('id').limit(limit);
    if (sector) {
      vessels = vessels.where('sector', '=', sector);
    }
    return ('after' in start ? vessels.where('id', '>', start.after) : vessels.offset(start.offset)).execute();
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
