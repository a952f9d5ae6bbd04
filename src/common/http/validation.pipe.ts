import { ValidationPipe } from '@nestjs/common';
import { ValidationFailedError } from '../errors/api-error';
import { describeValidationErrors } from '../validation/validation-errors';

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    stopAtFirstError: true,
    exceptionFactory: (errors) => new ValidationFailedError(describeValidationErrors(errors)),
  });
}
