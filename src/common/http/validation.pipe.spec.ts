import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ArgumentMetadata } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsOptional, ValidateNested, ValidationError } from 'class-validator';
import { DecommissionAssetDto, ListAssetsQueryDto } from '../../assets/dto/asset.dto';
import { IsIntInRange, IsNonBlankString } from '../dto/validators';
import { ValidationFailedError } from '../errors/api-error';
import { createValidationPipe, describeValidationErrors } from './validation.pipe';

function validationError(property: string, constraints?: Record<string, string>, children: ValidationError[] = []): ValidationError {
  return Object.assign(new ValidationError(), { property, constraints, children });
}

class Captain {
  @IsNonBlankString(20)
  name!: string;
}

class Order {
  @IsNonBlankString(10)
  reason!: string;

  @IsOptional()
  @Type(() => Number)
  @IsIntInRange(1, 100)
  limit?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => Captain)
  captain?: Captain;
}

const body = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype, data: '' });

/** Asserts a 400 VALIDATION_ERROR with exactly this message. */
function failsWith(message: string) {
  return (error: unknown) => {
    assert.ok(error instanceof ValidationFailedError, `expected ValidationFailedError, got ${String(error)}`);
    assert.equal(error.status, 400);
    assert.equal(error.errorCode, 'VALIDATION_ERROR');
    assert.equal(error.message, message);
    return true;
  };
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

describe('createValidationPipe', () => {
  const sut = createValidationPipe();

  it('names every failing field in one message, one reason per field', async () => {
    await assert.rejects(
      sut.transform({ reason: 42, limit: '0' }, body(Order)),
      failsWith('reason must be a string; limit must not be less than 1'),
    );
  });

  it('reports a missing required field', async () => {
    await assert.rejects(
      sut.transform({}, body(DecommissionAssetDto)),
      failsWith('reason is required; authorized_by is required'),
    );
  });

  it('reports blank and over-long values', async () => {
    await assert.rejects(
      sut.transform({ reason: '   ', authorized_by: 'x'.repeat(101) }, body(DecommissionAssetDto)),
      failsWith('reason must not be blank; authorized_by must be shorter than or equal to 100 characters'),
    );
  });

  it('refuses a property that is not on the DTO as "x is not an allowed field"', async () => {
    await assert.rejects(
      sut.transform({ reason: 'r', authorized_by: 'a', x: 1 }, body(DecommissionAssetDto)),
      failsWith('x is not an allowed field'),
    );
  });

  it('names failing nested fields by their path', async () => {
    await assert.rejects(
      sut.transform({ reason: 'r', captain: { name: '', rank: 'admiral' } }, body(Order)),
      failsWith('captain.rank is not an allowed field; captain.name must not be blank'),
    );
  });

  it('returns a valid body as an instance of the DTO', async () => {
    const result: unknown = await sut.transform({ reason: 'r', authorized_by: 'a' }, body(DecommissionAssetDto));

    assert.ok(result instanceof DecommissionAssetDto);
    assert.deepEqual({ ...result }, { reason: 'r', authorized_by: 'a' });
  });

  it('converts query strings and applies the defaults', async () => {
    const result: unknown = await sut.transform({ limit: '5', status: 'active' }, { type: 'query', metatype: ListAssetsQueryDto, data: '' });

    assert.ok(result instanceof ListAssetsQueryDto);
    assert.equal(result.limit, 5);
    assert.equal(result.page, 1);
    assert.equal(result.status, 'active');
  });
});
