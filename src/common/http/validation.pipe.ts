import { type ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from '../errors/api-error';
import { describeUnsafeShape } from '../validation/input-shape';
import { describeValidationErrors } from '../validation/validation-errors';

/**
 * Nest's ValidationPipe, after two checks on the raw input that class-transformer must never see: a
 * body is a JSON object (or absent), and no body or query nests too deep or uses a prototype name as
 * a key. Nest's pipe would silently strip `__proto__`, and its whitelist lets `constructor` through.
 */
class InputValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw new ValidationFailedError('The request body must be a JSON object');
    }
    const problem = metadata.type === 'body' || metadata.type === 'query' ? describeUnsafeShape(value) : null;
    if (problem) {
      throw new ValidationFailedError(problem);
    }
    return super.transform(value, metadata);
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
