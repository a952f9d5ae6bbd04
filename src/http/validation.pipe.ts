import { type ArgumentMetadata, type Type, ValidationPipe } from '@nestjs/common';
import { ValidationFailedError, describeUnsafeShape, describeValidationErrors } from '../common';

/** Valid queries kept per DTO class, a few hundred bytes each; emptied when full. */
const VALID_QUERIES_KEPT = 1_000;

/**
 * Nest's ValidationPipe, after two checks on the raw input that class-transformer must never see: a
 * body is a JSON object (or absent), and no body or query nests too deep or uses a prototype name as
 * a key. Nest's pipe would silently strip `__proto__`, and its whitelist lets `constructor` through.
 */
class InputValidationPipe extends ValidationPipe {
  private readonly validQueries = new Map<Type, Map<string, object>>();

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
   * parsed query (strings and arrays of strings, so its JSON names it exactly), and costs a listing more
   * CPU than the rest of its pipeline: measured on Node 26 (docs/performance.md), a listing took about 1.3
   * times the server CPU without this. A query seen before gets a copy of the DTO it gave: the query DTOs
   * hold only strings and numbers, so each request has its own and may change it. Every new query is
   * validated; an invalid one is never kept, so it is refused every time.
   */
  private async transformQuery(value: unknown, metatype: Type, metadata: ArgumentMetadata): Promise<unknown> {
    let valid = this.validQueries.get(metatype);
    if (valid === undefined) {
      valid = new Map();
      this.validQueries.set(metatype, valid);
    }
    const key = JSON.stringify(value);
    let dto = valid.get(key);
    if (dto === undefined) {
      dto = (await super.transform(value, metadata)) as object;
      if (valid.size >= VALID_QUERIES_KEPT) {
        valid.clear();
      }
      valid.set(key, dto);
    }
    return Object.assign(Object.create(Object.getPrototypeOf(dto) as object) as object, dto);
  }
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
