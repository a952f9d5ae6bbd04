import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsIntInRange, IsRequired, SuccessEnvelope, ToInteger } from '../../common';

/** The most events a tree may have: sizes stay exact in JavaScript numbers. */
const MAX_TREE_SIZE = Number.MAX_SAFE_INTEGER;

export class AuditEventIdParamDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1, description: 'The event id' })
  @ToInteger()
  @IsIntInRange(1, MAX_TREE_SIZE)
  id!: number;
}

export class InclusionProofQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, example: 1, description: 'The tree to prove inclusion in; by default the latest checkpoint\'s' })
  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, MAX_TREE_SIZE)
  readonly tree_size?: number;
}

export class ConsistencyProofQueryDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1, description: 'The size of the older tree' })
  @IsRequired()
  @ToInteger()
  @IsIntInRange(1, MAX_TREE_SIZE)
  readonly first!: number;

  @ApiProperty({ type: 'integer', minimum: 1, example: 1, description: 'The size of the newer tree, at least first' })
  @IsRequired()
  @ToInteger()
  @IsIntInRange(1, MAX_TREE_SIZE)
  readonly second!: number;
}

const HASH_EXAMPLE = 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=';

export class InclusionProofDto {
  @ApiProperty({ type: 'integer', example: 0, description: "The event's zero-based position in the tree" })
  leaf_index!: number;

  @ApiProperty({ type: 'integer', example: 1 })
  tree_size!: number;

  @ApiProperty({ example: HASH_EXAMPLE, description: "The event's RFC 9162 leaf hash (base64)" })
  leaf_hash!: string;

  @ApiProperty({ type: [String], example: [], description: 'RFC 9162 inclusion path, from the leaf up (base64 hashes)' })
  inclusion_path!: string[];

  @ApiProperty({ example: HASH_EXAMPLE, description: 'The root of the tree of tree_size events (base64)' })
  root_hash!: string;
}

export class ConsistencyProofDto {
  @ApiProperty({ type: 'integer', example: 1 })
  first!: number;

  @ApiProperty({ type: 'integer', example: 1 })
  second!: number;

  @ApiProperty({ type: [String], example: [], description: 'RFC 9162 consistency path (base64 hashes); empty when first equals second' })
  consistency_path!: string[];
}

export class InclusionProofResponseDto extends SuccessEnvelope(InclusionProofDto) {}

export class ConsistencyProofResponseDto extends SuccessEnvelope(ConsistencyProofDto) {}
