export * from './errors/api-error';
export { ApiErrorResponse, ErrorResponseDto } from './dto/error-response.dto';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, PageMetaDto, PageQueryDto, pageMeta, pageOffset } from './dto/page-query.dto';
export { ApiExceptionFilter } from './http/api-exception.filter';
export { assignRequestId, serveApiAlias, REQUEST_ID_HEADER } from './http/request-context';
export { BodyErrorInterceptor, deferBodyErrors } from './http/body-errors';
export { createValidationPipe, describeValidationErrors } from './http/validation.pipe';
export { ASSET_ID_PATTERN, IsAssetId, IsIntInRange, IsNonBlankString, ToInteger } from './dto/validators';
export { UNAVAILABILITY_CHECK, type UnavailabilityCheck } from './errors/unavailability';
