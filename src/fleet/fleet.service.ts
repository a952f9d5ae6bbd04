import { Injectable } from '@nestjs/common';
import { LruCache, pageNumber, pageOffset } from '../common';
import { strongEntityTag } from '../http';
import type { ListVesselsQueryDto, VesselListResponseDto, VesselPageDto } from './dto/vessel.dto';
import { FleetRepository, type PageStart } from './fleet.repository';

/**
 * Built pages kept for reuse: at 100 vessels a page, about 25 KB each. Kept as their JSON encoded in
 * UTF-8, which the socket takes as it is: a cached object would be shared by every request that hits
 * it, and cached text would be encoded again for each answer.
 */
const CACHED_PAGES = 500;
/**
 * The body's shape: its keys in order and each value's JSON type. Its digest is part of every ETag, so an
 * ETag of another shape never matches; fleet.service.spec.ts fails on a body of any other shape, so a
 * change of shape is written here, and that alone changes the ETags.
 */
export const BODY_SHAPE = {
  status: 'string',
  data: {
    vessels: [{ id: 'string', name: 'string', class: 'string', length: 'string', crew: 'number', commander: 'string', sector: 'string', status: 'string' }],
    total_count: 'number',
    page: 'number | null',
    per_page: 'number',
    next_cursor: 'string | null',
  },
} as const;
const BODY_SHAPE_TAG = strongEntityTag(BODY_SHAPE);

export interface VesselListing {
  /** Names this page of this version of the data, on every instance. */
  etag: string;
  /** The JSON body, built only when asked for, and only once per version and query on this instance. */
  body: () => Promise<Buffer>;
}

/** A page of one version of the data, as this instance answered it: its tag, and its body once built. */
interface BuiltPage {
  etag: string;
  body?: Buffer;
}

@Injectable()
export class FleetService {
  /** By the page's data version, sector, size and position: what its entity tag is a digest of. */
  private readonly builtPages = new LruCache<string, BuiltPage>(CACHED_PAGES);

  constructor(private readonly fleet: FleetRepository) {}

  /**
   * Reads the data version and the count before any row, so a page is never labelled with a version
   * newer than its rows: a write in between only makes it look older, and a cached page stale under a
   * current version is impossible.
   */
  async openListing(query: ListVesselsQueryDto): Promise<VesselListing> {
    const { version, total } = await this.fleet.readState(query.sector);
    const position = query.after === undefined ? { page: pageNumber(query) } : { after: query.after };
    const identity = [version, query.sector ?? null, query.limit, position];
    const key = JSON.stringify(identity);
    let page = this.builtPages.get(key);
    if (page === undefined) {
      page = { etag: strongEntityTag(BODY_SHAPE_TAG, ...identity) };
      this.builtPages.set(key, page);
    }
    const built = page;
    return { etag: built.etag, body: async () => (built.body ??= await this.buildBody(query, total)) };
  }

  private async buildBody(query: ListVesselsQueryDto, total: number): Promise<Buffer> {
    const response: VesselListResponseDto = { status: 'success', data: await this.listVessels(query, total) };
    return Buffer.from(JSON.stringify(response));
  }

  private async listVessels(query: ListVesselsQueryDto, total: number): Promise<VesselPageDto> {
    const start: PageStart = query.after === undefined ? { offset: pageOffset(query) } : { after: query.after };
    // One vessel past the page says whether another page follows.
    const rows = await this.fleet.findPage(query.sector, query.limit + 1, start);
    const vessels = rows.slice(0, query.limit);
    return {
      vessels,
      total_count: total,
      page: 'after' in start ? null : pageNumber(query),
      per_page: query.limit,
      next_cursor: rows.length > query.limit ? vessels[vessels.length - 1].id : null,
    };
  }
}
