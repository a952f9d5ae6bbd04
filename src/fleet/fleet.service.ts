import { Injectable } from '@nestjs/common';
import { pageNumber, pageOffset } from '../common';
import { strongEntityTag } from '../http';
import type { ListVesselsQueryDto, VesselListResponseDto, VesselPageDto } from './dto/vessel.dto';
import { FleetRepository, type PageStart } from './fleet.repository';

/**
 * Built pages kept for reuse, by entity tag, as their JSON encoded in UTF-8: at 100 vessels a page, about
 * 25 KB each; emptied when full. Measured on Node 26 (docs/performance.md): without it a listing took
 * about 1.5 times the server CPU, reading its vessels and encoding them on every request.
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
  /** The JSON body, built only when asked for (a 304 reads no vessel), and once per entity tag while kept. */
  body: () => Promise<Buffer>;
}

@Injectable()
export class FleetService {
  /** By entity tag, a digest of the page's data version, sector, size and position. */
  private readonly builtPages = new Map<string, Buffer>();

  constructor(private readonly fleet: FleetRepository) {}

  /**
   * Reads the data version and the count before any row, so a page is never labelled with a version
   * newer than its rows: a write in between only makes it look older, and a kept page is never served
   * under another version, as its entity tag names the version.
   */
  async openListing(query: ListVesselsQueryDto): Promise<VesselListing> {
    const { version, total } = await this.fleet.readState(query.sector);
    const position = query.after === undefined ? { page: pageNumber(query) } : { after: query.after };
    const etag = strongEntityTag(BODY_SHAPE_TAG, version, query.sector ?? null, query.limit, position);
    return { etag, body: () => this.builtBody(etag, query, total) };
  }

  private async builtBody(etag: string, query: ListVesselsQueryDto, total: number): Promise<Buffer> {
    let body = this.builtPages.get(etag);
    if (body === undefined) {
      body = await this.buildBody(query, total);
      if (this.builtPages.size >= CACHED_PAGES) {
        this.builtPages.clear();
      }
      this.builtPages.set(etag, body);
    }
    return body;
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
