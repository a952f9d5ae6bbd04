import { type ArgumentMetadata, type Type, ValidationPipe } from '@nestjs/common';
import { LruCache, ValidationFailedError, describeUnsafeShape, describeValidationErrors } from '../common';

/** Valid queries kept per DTO class: a few hundred bytes each. */
const VALID_QUERIES_KEPT = 1_000;

/**
 * Nest's ValidationPipe, after two checks on the raw input that class-transformer must never see: a
 * body is a JSON object (or absent), and no body or query nests too deep or uses a prototype name as
 * a key. Nest's pipe would silently strip `__proto__`, and its whitelist lets `constructor` through.
 */
class InputValidationPipe extends ValidationPipe {
  private readonly validQueries = new Map<Type, LruCache<string, Readonly<object>>>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw new ValidationFailedError('The request body must be a JSON object');
    }
    const problem = metadata.type === 'body' || metadata.type === 'query' ? describeUnsafeShape(value) : null;
    if (problem) {
      throw new ValidationFailedError(problem);
    }
    if (metadata.type === 'query' && !metadata.data && metadata.metatype !== undefined && this.toValidate(metadata)) {
      return this.transformQuery(value, metadata.metatype, metadata);
    }
    return super.transform(value, metadata);
  }

  /**
   * A whole query as a DTO. Transforming and validating it is a pure function of the DTO class and the
   * parsed query (strings and arrays of strings, so its JSON names it exactly), and costs more than the
   * rest of a listing's work: a query seen before gets the same DTO again, frozen to its depth, since
   * requests share it (the query DTOs' fields are readonly to say so). Every new query is validated; an invalid one is never kept, so it is refused every time.
   */
  private async transformQuery(value: unknown, metatype: Type, metadata: ArgumentMetadata): Promise<unknown> {
    let valid = this.validQueries.get(metatype);
    if (valid === undefined) {
      valid = new LruCache(VALID_QUERIES_KEPT);
      this.validQueries.set(metatype, valid);
    }
    const key = JSON.stringify(value);
    const known = valid.get(key);
    if (known !== undefined) {
      return known;
    }
    const dto = deepFreeze(await super.transform(value, metadata)) as Readonly<object>;
    valid.set(key, dto);
    return dto;
  }
}

/** Freezes `value` and every object it holds: one request's change to a shared DTO would reach the next. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) {
      deepFreeze((value as Record<PropertyKey, unknown>)[key]);
    }
  }
  return value;
}

export function createValidationPipe(): ValidationPipe {
  return new InputValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
    exceptionFactory: (errors) => new ValidationFailedError(describeValidationErrors(errors)),
  });
}
