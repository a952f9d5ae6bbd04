import { applyDecorators } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';

/** The OpenAPI extension that marks an operation the request limit skips; its answers carry no X-RateLimit-* headers. */
export const UNTHROTTLED_OPERATION_EXTENSION = 'x-unthrottled';

/** Not counted against the request limit, and documented so: the OpenAPI document then describes no rate-limit headers on it. */
export const Unthrottled = () => applyDecorators(SkipThrottle(), ApiExtension(UNTHROTTLED_OPERATION_EXTENSION, true));
