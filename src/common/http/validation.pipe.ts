import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from '../errors/api-error';

function describe(errors: ValidationError[], parentPath = ''): string[] {
  return errors.flatMap((error) => {
    const path = parentPath ? `${parentPath}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([constraint, text]) =>
      constraint === 'whitelistValidation'
        ? `${path} is not an allowed field`
        : text.startsWith(error.property)
          ? `${path}${text.slice(error.property.length)}`
          : `${path}: ${text}`,
    );
    return [...own, ...describe(error.children ?? [], path)];
  });
}

/** Messages name every field at fault, e.g. "reason should not be empty; limit must not be greater than 100". */
export function describeValidationErrors(errors: ValidationError[], parentPath = ''): string {
  return describe(errors, parentPath).join('; ');
}

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
    exceptionFactory: (errors) => new ValidationFailedError(describeValidationErrors(errors)),
  });
}
