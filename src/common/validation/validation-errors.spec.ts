import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationError } from 'class-validator';
import { describeValidationErrors } from './validation-errors';

function validationError(property: string, constraints?: Record<string, string>, children: ValidationError[] = []): ValidationError {
  return Object.assign(new ValidationError(), { property, constraints, children });
}

describe('describeValidationErrors', () => {
  it('joins one message per failing field with "; "', () => {
    const sut = describeValidationErrors([
      validationError('reason', { isDefined: 'reason is required' }),
      validationError('limit', { max: 'limit must not be greater than 100' }),
    ]);

    assert.equal(sut, 'reason is required; limit must not be greater than 100');
  });

  it('says "x is not an allowed field" for a property the whitelist refuses', () => {
    assert.equal(
      describeValidationErrors([validationError('x', { whitelistValidation: 'property x should not exist' })]),
      'x is not an allowed field',
    );
  });

  it('prefixes a message that does not start with the field name with the field', () => {
    assert.equal(describeValidationErrors([validationError('id', { matches: 'must look like ISD-001' })]), 'id: must look like ISD-001');
  });

  it('names nested fields by their path', () => {
    const sut = describeValidationErrors([
      validationError('captain', undefined, [
        validationError('name', { isDefined: 'name is required' }),
        validationError('rank', { whitelistValidation: 'property rank should not exist' }),
      ]),
    ]);

    assert.equal(sut, 'captain.name is required; captain.rank is not an allowed field');
  });

  it('lists every constraint of a field', () => {
    const sut = describeValidationErrors([
      validationError('limit', { isInt: 'limit must be an integer number', min: 'limit must not be less than 1' }),
    ]);

    assert.equal(sut, 'limit must be an integer number; limit must not be less than 1');
  });

  it('is empty when there are no errors', () => {
    assert.equal(describeValidationErrors([]), '');
  });
});
