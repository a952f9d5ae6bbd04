export * from './errors/api-error';
export { ApiErrorResponse, ERROR_MESSAGE_MAX_LENGTH, ErrorResponseDto, WWW_AUTHENTICATE_HEADER } from './dto/error-response.dto';
export { ASSET_ID_SCHEMA, BASE64_SHA256_SCHEMA, HEX_SHA256_SCHEMA, INSTANT_SCHEMA, SAFE_INTEGER_BOUNDS, TOKEN_SUBJECT_SCHEMA, textSchema, VESSEL_ID_SCHEMA } from './dto/schema-bounds';
export { CURSOR_SCHEMA, DEFAULT_PAGE_SIZE, KeysetPagePosition, MAX_PAGE, MAX_PAGE_SIZE, NextCursor, PageMetaDto, PageOf, PageQueryDto, pageMeta, pageNumber, pageOffset } from './dto/page-query.dto';
export { describeValidationErrors } from './validation/validation-errors';
export { describeUnsafeShape } from './validation/input-shape';
export type { RequestOrigin } from './request-origin';
export {
  ASSET_ID_PATTERN,
  IsAssetId,
  IsInstant,
  IsIntInRange,
  IsNonBlankString,
  IsNotCombinedWith,
  IsRequired,
  IsVesselId,
  TEXT_CHARACTERS,
  ToInteger,
  VESSEL_ID_PATTERN,
} from './validation/validators';
export { UNAVAILABILITY_CHECK, type UnavailabilityCheck } from './errors/unavailability';
export type { Actor, Denial } from './errors/denial';
export { DENIAL_RECORDER, type DenialRecorder } from './errors/denial-recorder';
export { SuccessEnvelope } from './dto/success-envelope.dto';
export { insideRecordedWork } from './tracing/recorded-work';
export { Span } from './tracing/span';
export { OneRunAtATime } from './concurrency/one-run-at-a-time';
