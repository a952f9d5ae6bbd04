import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsDefined, IsString, Matches, MaxLength, ValidateBy } from 'class-validator';

/** Absent or null reads "is required", before any check of the value's type or form. */
export function IsRequired(): PropertyDecorator {
  return IsDefined({ message: '$property is required' });
}

/**
 * No control characters (NUL, tab and newline included) and no unpaired surrogates: what either engine
 * stores as sent. Spelled out in code units rather than \p{Cc}, so that it means the same without the
 * `u` flag, as JSON Schema validators read the OpenAPI document's patterns.
 */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
export const TEXT_CHARACTERS = /^(?:[^\u0000-\u001f\u007f-\u009f\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/;

/**
 * A required text field that must carry something besides white space, and nothing either engine
 * would store differently from what was sent: no control characters (NUL, tab and newline included)
 * and no unpaired surrogates. What is answered is then exactly what is stored.
 */
export function IsNonBlankString(maxLength: number): PropertyDecorator {
  return applyDecorators(
    IsRequired(),
    IsString(),
    Matches(/\S/, { message: '$property must not be blank' }),
    Matches(TEXT_CHARACTERS, { message: '$property must not contain control characters or unpaired surrogates' }),
    MaxLength(maxLength),
  );
}

/**
 * Turns a query-string integer such as "10" into a number; anything else ("1e1", "0x10", " 1") is left
 * as it came, for the integer check to refuse.
 */
export function ToInteger(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^-?[0-9]+$/.test(value) ? Number(value) : value));
}

/** An integer within bounds, refused in one message that names both: "abc", 0 and 70000 are the same mistake for a port. */
export function IsIntInRange(min: number, max: number): PropertyDecorator {
  return ValidateBy({
    name: 'isIntInRange',
    constraints: [min, max],
    validator: {
      validate: (value) => Number.isInteger(value) && (value as number) >= min && (value as number) <= max,
      defaultMessage: (args) => `${args?.property} must be a whole number from ${min} to ${max}`,
    },
  });
}

export const ASSET_ID_PATTERN = /^[A-Z]{3}-[0-9]{4}$/;

export function IsAssetId(): PropertyDecorator {
  return Matches(ASSET_ID_PATTERN, { message: `$property must match ${ASSET_ID_PATTERN.source}` });
}

export const VESSEL_ID_PATTERN = /^[A-Z]{1,8}-[0-9]{1,9}$/;

export function IsVesselId(): PropertyDecorator {
  return Matches(VESSEL_ID_PATTERN, { message: '$property must be a letter prefix, a hyphen and a number, e.g. ISD-001' });
}

/** Refuses the field when `other` was sent too: the two ask for different things. */
export function IsNotCombinedWith(other: string): PropertyDecorator {
  return ValidateBy({
    name: 'isNotCombinedWith',
    constraints: [other],
    validator: {
      validate: (_value, args) => (args?.object as Record<string, unknown>)[other] === undefined,
      defaultMessage: (args) => `${args?.property} and ${other} cannot be combined`,
    },
  });
}

/** An ISO 8601 instant with its offset (`2026-11-21T10:15:30Z`, `...+02:00`), a real calendar date. */
const INSTANT_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export function IsInstant(): PropertyDecorator {
  return ValidateBy({
    name: 'isInstant',
    validator: {
      validate: (value) => {
        const parts = typeof value === 'string' ? INSTANT_PATTERN.exec(value) : null;
        if (!parts || Number.isNaN(Date.parse(value as string))) {
          return false;
        }
        // Date.parse rolls 2026-02-30 over into March: refuse a day the month lacks.
        const [year, month, day] = parts.slice(1, 4).map(Number);
        return new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
      },
      defaultMessage: (args) => `${args?.property} must be an ISO 8601 instant with an offset, e.g. 2026-11-21T10:15:30Z`,
    },
  });
}
