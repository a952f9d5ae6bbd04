import type { Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsIntInRange, ToInteger } from '../validation/validators';
import { SAFE_INTEGER_BOUNDS } from './schema-bounds';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 10;
/** Keeps the offset a safe integer in every SQL engine. */
export const MAX_PAGE = 1_000_000;
/** Long enough for any keyset cursor a listing writes. */
const CURSOR_MAX_LENGTH = 24;
/** A keyset cursor as the listings write it: base64url, opaque to clients. */
export const CURSOR_SCHEMA = { type: 'string', pattern: '^[A-Za-z0-9_-]+$', maxLength: CURSOR_MAX_LENGTH } as const;

/** A whole query's DTO: only strings and numbers, so the validation pipe's copy of a known query is a whole copy. */
export class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: 'The maximum number of items to return.' })
  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, MAX_PAGE_SIZE)
  readonly limit: number = DEFAULT_PAGE_SIZE;

  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 1, maximum: MAX_PAGE, default: 1, description: 'The page to return, counting from 1; a page past the end is empty.' })
  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, MAX_PAGE)
  /** Absent when not sent, so a route can tell; page 1 then. */
  readonly page?: number;
}

export class PageMetaDto {
  @ApiProperty({ ...SAFE_INTEGER_BOUNDS, minimum: 0, example: 14, description: 'Every item matching the filter, across all pages.' })
  total_count!: number;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: MAX_PAGE, example: 1 })
  page!: number;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: MAX_PAGE_SIZE, example: 10, description: 'The effective page size.' })
  per_page!: number;
}

/** The position of a page that may be asked for by keyset cursor instead of page: such a page counts nothing and has no number. */
export class KeysetPagePosition {
  @ApiProperty({ ...SAFE_INTEGER_BOUNDS, minimum: 0, nullable: true, example: 14, description: 'Every item matching the filter, across all pages; null on a page asked for with cursor, which counts nothing.' })
  total_count!: number | null;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: MAX_PAGE, nullable: true, example: 1, description: 'The page number; null on a page asked for with cursor.' })
  page!: number | null;
}

export class NextCursor {
  @ApiProperty({ ...CURSOR_SCHEMA, nullable: true, example: 'ZTQy', description: 'Pass as cursor for the next (older) page; null on the last page.' })
  next_cursor!: string | null;
}

/**
 * A page's items under `itemsKey`, then its position, the order the services write them in
 * (`{ vessels, total_count, page, per_page }`), which Swagger UI's examples follow. Extend it to name
 * the schema: `class VesselPageDto extends PageOf('vessels', VesselDto) {}`.
 */
export function PageOf<Key extends string, Item>(itemsKey: Key, itemType: Type<Item>): Type<Record<Key, Item[]> & PageMetaDto> {
  class Items {}
  ApiProperty({ type: [itemType], maxItems: MAX_PAGE_SIZE })(Items.prototype, itemsKey);
  return IntersectionType(Items, PageMetaDto) as Type<Record<Key, Item[]> & PageMetaDto>;
}

/** How many items the requested page skips. */
export function pageOffset(query: PageQueryDto): number {
  return (pageNumber(query) - 1) * query.limit;
}

export function pageMeta(query: PageQueryDto, totalCount: number): PageMetaDto {
  return { total_count: totalCount, page: pageNumber(query), per_page: query.limit };
}

export function pageNumber(query: PageQueryDto): number {
  return query.page ?? 1;
}
