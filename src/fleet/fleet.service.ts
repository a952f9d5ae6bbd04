import { Injectable } from '@nestjs/common';
import { LruCache, pageNumber, pageOffset } from '../common';
import { strongEntityTag } from '../http';
import type { ListVesselsQueryDto, VesselListResponseDto, VesselPageDto } from './dto/vessel.dto';
import { FleetRepository, type PageStart } from './fleet.repository';

/**
 * Built pages kept for reuse: at 100 vessels a page, about 25 KB each. Kept as their JSON text, which no
 * request can change: a cached object would be shared by every request that hits it.
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
  body: () => Promise<string>;
}

@Injectable()
export class FleetService {
  private readonly builtPages = new LruCache<string, string>(CACHED_PAGES);

  constructor(private readonly fleet: FleetRepository) {}

  /**
   * Reads the data version and the count before any row, so a page is never labelled with a version
   * newer than its rows: a write in between only makes it look older, and a cached page stale under a
   * current version is impossible.
   */
  async openListing(query: ListVesselsQueryDto): Promise<VesselListing> {
    const { version, total } = await this.fleet.readState(query.sector);
    const position = query.after === undefined ? { page: pageNumber(query) } : { after: query.after };
    const etag = strongEntityTag(BODY_SHAPE_TAG, version, query.sector ?? null, query.limit, position);
    return { etag, body: () => this.pageBody(etag, query, total) };
  }

  private async pageBody(etag: string, query: ListVesselsQueryDto, total: number): Promise<string> {
    const cached = this.builtPages.get(etag);
    if (cached !== undefined) {
      return cached;
    }
    const response: VesselListResponseDto = { status: 'success', data: await this.listVessels(query, total) };
    const body = JSON.stringify(response);
    this.builtPages.set(etag, body);
    return body;
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
