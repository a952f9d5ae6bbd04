export * from './errors/api-error';
export { ApiErrorResponse, ErrorResponseDto, WWW_AUTHENTICATE_HEADER } from './dto/error-response.dto';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, PageMetaDto, PageOf, PageQueryDto, pageMeta, pageNumber, pageOffset } from './dto/page-query.dto';
export { ApiExceptionFilter } from './http/api-exception.filter';
export { assignRequestId, fixedHeaders, headersSetBy, serveApiAlias, REQUEST_ID_HEADER } from './http/request-context';
export { repairPathEncoding } from './http/path-encoding';
export { MethodNotAllowedModule } from './http/method-not-allowed';
export { BodyErrorModule, readJsonBodies } from './http/body-errors';
export { inOneLayer } from './http/one-layer';
export { ExpressObjectsAdapter } from './http/express-objects';
export { routeMetadata } from './http/route-metadata';
export { createValidationPipe } from './http/validation.pipe';
export { describeValidationErrors } from './validation/validation-errors';
export {
  ASSET_ID_PATTERN,
  IsAssetId,
  IsIntInRange,
  IsNonBlankString,
  IsNotCombinedWith,
  IsRequired,
  IsVesselId,
  ToInteger,
  VESSEL_ID_PATTERN,
} from './validation/validators';
export { UNAVAILABILITY_CHECK, type UnavailabilityCheck } from './errors/unavailability';
export { AUDIT_ACTIONS, DENIAL_REASONS, type Actor, type Denial, type DenialReason } from './errors/denial';
export { DENIAL_RECORDER, type DenialRecorder } from './errors/denial-recorder';
export { RequestOrigin, requestOrigin } from './http/request-origin';
export { SuccessEnvelope } from './dto/success-envelope.dto';
export { LruCache } from './cache/lru-cache';
export { ifNoneMatchIncludes, REVALIDATE_ON_EVERY_USE, strongEntityTag } from './http/entity-tags';
