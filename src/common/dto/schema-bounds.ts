import { ASSET_ID_PATTERN, TEXT_CHARACTERS, VESSEL_ID_PATTERN } from '../validation/validators';

/**
 * OpenAPI schemas for the values many DTOs share, with the bounds the service holds them to, so the
 * document states each bound once. Spread into @ApiProperty: `@ApiProperty({ ...ASSET_ID_SCHEMA })`.
 */

/** AAA-9999: three capital letters, a hyphen, four digits; always eight characters. */
export const ASSET_ID_SCHEMA = { type: 'string', pattern: ASSET_ID_PATTERN.source, maxLength: 8, example: 'TIE-0001' } as const;

/** A letter prefix of up to 8, a hyphen and a number of up to 9 digits: at most 18 characters. */
export const VESSEL_ID_SCHEMA = { type: 'string', pattern: VESSEL_ID_PATTERN.source, maxLength: 18, example: 'ISD-001' } as const;

/**
 * Text as the service keeps it: held to IsNonBlankString on its way in (a request body, the record
 * import) or made storable() for the audit trail, so without control characters or unpaired surrogates.
 */
export const textSchema = (maxLength: number) => ({ type: 'string', pattern: TEXT_CHARACTERS.source, maxLength }) as const;

/** A token's `sub`, as the token check holds it: not blank. Its length bound, SUBJECT_MAX_LENGTH, is auth's, added where it is used. */
export const TOKEN_SUBJECT_SCHEMA = { type: 'string', pattern: '\\S' } as const;

/** A count, id or size of the audit trail: exact in a JavaScript number, as the service keeps it. */
export const SAFE_INTEGER_BOUNDS = { type: 'integer', format: 'int64', maximum: Number.MAX_SAFE_INTEGER } as const;

/** A SHA-256 digest in lowercase hex. */
export const HEX_SHA256_SCHEMA = { type: 'string', pattern: '^[0-9a-f]{64}$', maxLength: 64 } as const;

/** A SHA-256 digest in base64 (RFC 9162's hashes as the audit tree shows them). */
export const BASE64_SHA256_SCHEMA = { type: 'string', pattern: '^[A-Za-z0-9+/]{43}=$', maxLength: 44 } as const;

/** An instant as the service stores it, decommissions and imports alike: toISOString's UTC, to the millisecond. */
export const INSTANT_SCHEMA = { type: 'string', format: 'date-time', maxLength: 24 } as const;
