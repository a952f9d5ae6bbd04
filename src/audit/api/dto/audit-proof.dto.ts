import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { BASE64_SHA256_SCHEMA, IsIntInRange, IsRequired, SAFE_INTEGER_BOUNDS, SuccessEnvelope, ToInteger } from '../../../common';

/** The most events a tree may have: sizes stay exact in JavaScript numbers. */
const MAX_TREE_SIZE = Number.MAX_SAFE_INTEGER;
/** A tree of at most 2^53 events: an inclusion path holds at most 53 hashes, a consistency path at most 54. */
const MAX_PROOF_HASHES = 64;

export class AuditEventIdParamDto {
  @ApiProperty({ ...SAFE_INTEGER_BOUNDS, minimum: 1, example: 1, description: 'The event id' })
  @ToInteger()
  @IsIntInRange(1, MAX_TREE_SIZE)
  id!: number;
}

export class InclusionProofQueryDto {
  @ApiPropertyOptional({ ...SAFE_INTEGER_BOUNDS, minimum: 1, example: 1, description: 'The tree to prove inclusion in; by default the latest checkpoint\'s' })
  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, MAX_TREE_SIZE)
  readonly tree_size?: number;
}

export class ConsistencyProofQueryDto {
  @ApiProperty({ ...SAFE_INTEGER_BOUNDS, minimum: 1, example: 1, description: 'The size of the older tree' })
  @IsRequired()
  @ToInteger()
  @IsIntInRange(1, MAX_TREE_SIZE)
  readonly first!: number;

  @ApiProperty({ ...SAFE_INTEGER_BOUNDS, minimum: 1, example: 1, description: 'The size of the newer tree, at least first' })
  @IsRequired()
  @ToInteger()
  @IsIntInRange(1, MAX_TREE_SIZE)
  readonly second!: number;
}

const HASH_EXAMPLE = 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=';

export class InclusionProofDto {
  @ApiProperty({ ...SAFE_INTEGER_BOUNDS, minimum: 0, example: 0, description: "The event's zero-based position in the tree" })
  leaf_index!: number;

  @ApiProperty({ ...SAFE_INTEGER_BOUNDS, minimum: 1, example: 1 })
  tree_size!: number;

  @ApiProperty({ ...BASE64_SHA256_SCHEMA, example: HASH_EXAMPLE, description: "The event's RFC 9162 leaf hash (base64)" })
  leaf_hash!: string;

  @ApiProperty({ type: 'array', items: BASE64_SHA256_SCHEMA, maxItems: MAX_PROOF_HASHES, example: [], description: 'RFC 9162 inclusion path, from the leaf up (base64 hashes)' })
  inclusion_path!: string[];

  @ApiProperty({ ...BASE64_SHA256_SCHEMA, example: HASH_EXAMPLE, description: 'The root of the tree of tree_size events (base64)' })
  root_hash!: string;
}

export class ConsistencyProofDto {
  @ApiProperty({ ...SAFE_INTEGER_BOUNDS, minimum: 1, example: 1 })
  first!: number;

  @ApiProperty({ ...SAFE_INTEGER_BOUNDS, minimum: 1, example: 1 })
  second!: number;

  @ApiProperty({ type: 'array', items: BASE64_SHA256_SCHEMA, maxItems: MAX_PROOF_HASHES, example: [], description: 'RFC 9162 consistency path (base64 hashes); empty when first equals second' })
  consistency_path!: string[];
}

export class InclusionProofResponseDto extends SuccessEnvelope(InclusionProofDto) {}

export class ConsistencyProofResponseDto extends SuccessEnvelope(ConsistencyProofDto) {}
