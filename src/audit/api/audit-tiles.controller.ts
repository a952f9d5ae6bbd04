import { Controller, createParamDecorator, type ExecutionContext, Get, Inject, Param, Res, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiErrorResponse } from '../../common';
import { AUDIT_CONFIG, type AuditConfig } from '../../config';
import { AUDIT_ACTIONS } from '../audit.vocabulary';
import { OpenedBy, RequiresClearance } from '../../auth';
import { AuditTiles, type Tile, TILE_NOT_FOUND } from '../trail';

const OCTETS = 'application/octet-stream';
/** A full tile is 256 hashes of 32 bytes; an entry bundle 256 entries of at most 65,535 bytes and their 2-byte lengths. */
const HASH_TILE_SCHEMA = { type: 'string', format: 'binary', maxLength: 8_192 } as const;
const ENTRY_BUNDLE_SCHEMA = { type: 'string', format: 'binary', maxLength: 256 * 65_537 } as const;
/** A partial tile is replaced by wider ones as the tree grows: caches keep it briefly. */
const PARTIAL_TILE_MAX_AGE_S = 60;
const INDEX_PATH_PARAM = {
  name: 'path',
  description: 'The tile index N as 3-digit groups, all but the last prefixed with x (1234067 is x001/x234/067), then `.p/<W>` (W from 1 to 255) for a partial tile of W hashes',
  schema: { type: 'string', pattern: '^(x[0-9]{3}/){0,5}[0-9]{3}(\\.p/[1-9][0-9]{0,2})?$', maxLength: 30, example: '000' },
} as const;
const NOT_A_TILE = [404, TILE_NOT_FOUND, 'the tree of the latest checkpoint (57 entries) does not hold this tile yet', 'A path that names no tile: malformed, or past the tree of the latest checkpoint (AUDIT_TILE_NOT_FOUND)'] as const;
const NO_CHECKPOINT = [503, 'SERVICE_UNAVAILABLE', 'No audit checkpoint has been signed yet; retry in a moment', 'no audit checkpoint signed yet (SERVICE_UNAVAILABLE)'] as const;
const ACCESS =
  'Clearance 7 or higher, or no token at all where AUDIT_TILES_PUBLIC=true. Full tiles never change and are cached for a year (`immutable`; `public` where AUDIT_TILES_PUBLIC=true, ' +
  `\`private\` otherwise, so that no shared cache serves a tile to a caller without a token); partial tiles for ${PARTIAL_TILE_MAX_AGE_S} s.`;

/** The tile index path after `tile/<level>/`, as written: Express hands a wildcard over as its segments. */
const TileIndexPath = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const segments = context.switchToHttp().getRequest<Request>().params.path;
  return Array.isArray(segments) ? segments.join('/') : segments;
});

/**
 * The audit tree as C2SP tlog-tiles (https://c2sp.org/tlog-tiles), beside GET /v1/audit/checkpoint: with
 * them a generic tiles client recomputes the root of a checkpoint, and any proof, from tiles alone.
 */
@ApiTags('audit')
@Controller('v1/audit/tile')
export class AuditTilesController {
  constructor(
    private readonly tiles: AuditTiles,
    @Inject(AUDIT_CONFIG) private readonly config: AuditConfig,
  ) {}

  // Before tile/:level/*path, which would take `entries` for a level: Nest matches routes in this order.
  @Get('entries/*path')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @OpenedBy('AUDIT_TILES_PUBLIC')
  @ApiOperation({
    summary: 'A C2SP tlog-tiles entry bundle: 256 audit leaves, or fewer in a partial bundle (clearance 7, or public)',
    description:
      'Each entry is the leaf exactly as the tree hashes it (the JSON array of the event, see the leaf bytes in docs/audit.md) after its length as a big-endian uint16: ' +
      `SHA-256 of 0x00 and an entry is its hash in the level-0 tile of the same index. ${ACCESS}`,
  })
  @ApiParam(INDEX_PATH_PARAM)
  @ApiOkResponse({ description: 'The entries, each after its length', content: { [OCTETS]: { schema: ENTRY_BUNDLE_SCHEMA } } })
  @ApiErrorResponse(...NOT_A_TILE)
  @ApiErrorResponse(...NO_CHECKPOINT)
  async entries(@TileIndexPath() path: string, @Res({ passthrough: true }) res: Response): Promise<StreamableFile> {
    return this.send(await this.tiles.read('entries', path), res);
  }

  @Get(':level/*path')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @OpenedBy('AUDIT_TILES_PUBLIC')
  @ApiOperation({
    summary: 'A C2SP tlog-tiles hash tile: 256 hashes of the audit tree, or fewer in a partial tile (clearance 7, or public)',
    description:
      'The raw 32-byte SHA-256 hashes, one after another, of the complete subtrees of 256^level leaves numbered 256·N onwards: at level 0 the leaf hashes, ' +
      `at level 1 the roots of the full level-0 tiles, and so on. ${ACCESS}`,
  })
  @ApiParam({ name: 'level', description: 'The tile level, 0 to 63', schema: { type: 'string', pattern: '^(0|[1-9][0-9]?)$', maxLength: 2, example: '0' } })
  @ApiParam(INDEX_PATH_PARAM)
  @ApiOkResponse({ description: 'The hashes, 32 bytes each', content: { [OCTETS]: { schema: HASH_TILE_SCHEMA } } })
  @ApiErrorResponse(...NOT_A_TILE)
  @ApiErrorResponse(...NO_CHECKPOINT)
  async hashes(@Param('level') level: string, @TileIndexPath() path: string, @Res({ passthrough: true }) res: Response): Promise<StreamableFile> {
    return this.send(await this.tiles.read(level, path), res);
  }

  /** The bytes as they are (a Buffer returned plainly would be sent as JSON), with the caching its fullness allows. */
  private send(tile: Tile, res: Response): StreamableFile {
    const scope = this.config.tilesPublic ? 'public' : 'private';
    res.set('Cache-Control', tile.full ? `${scope}, max-age=31536000, immutable` : `${scope}, max-age=${PARTIAL_TILE_MAX_AGE_S}`);
    return new StreamableFile(tile.bytes, { type: OCTETS, length: tile.bytes.length });
  }
}
