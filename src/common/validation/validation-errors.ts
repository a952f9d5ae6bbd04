import type { ValidationError } from 'class-validator';

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

/**
 * One line naming every field at fault, e.g. "reason should not be empty; limit must be a whole number from 1 to 100".
 * Serves the HTTP validation pipe, the configuration check and the record import alike.
 */
export function describeValidationErrors(errors: ValidationError[], parentPath = ''): string {
  return describe(errors, parentPath).join('; ');
}
