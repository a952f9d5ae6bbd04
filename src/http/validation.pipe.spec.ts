import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ArgumentMetadata } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsIn, IsOptional, ValidateNested } from 'class-validator';
import { IsIntInRange, IsNonBlankString, PageQueryDto, ValidationFailedError } from '../common';
import { createValidationPipe } from './validation.pipe';

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

/** Shaped like a decommission's body. */
class Decision {
  @IsNonBlankString(500)
  reason!: string;

  @IsNonBlankString(100)
  authorized_by!: string;
}

/** Shaped like a listing's query. */
class Listing extends PageQueryDto {
  @IsOptional()
  @IsIn(['active', 'decommissioned'])
  status?: string;
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

describe('createValidationPipe', () => {
  const sut = createValidationPipe();

  it('names every failing field in one message, one reason per field', async () => {
    await assert.rejects(
      sut.transform({ reason: 42, limit: '0' }, body(Order)),
      failsWith('reason must be a string; limit must be a whole number from 1 to 100'),
    );
  });

  it('reports a missing required field', async () => {
    await assert.rejects(
      sut.transform({}, body(Decision)),
      failsWith('reason is required; authorized_by is required'),
    );
  });

  it('reports blank and over-long values', async () => {
    await assert.rejects(
      sut.transform({ reason: '   ', authorized_by: 'x'.repeat(101) }, body(Decision)),
      failsWith('reason must not be blank; authorized_by must be shorter than or equal to 100 characters'),
    );
  });

  it('refuses a property that is not on the DTO as "x is not an allowed field"', async () => {
    await assert.rejects(
      sut.transform({ reason: 'r', authorized_by: 'a', x: 1 }, body(Decision)),
      failsWith('x is not an allowed field'),
    );
  });

  it('names failing nested fields by their path', async () => {
    await assert.rejects(
      sut.transform({ reason: 'r', captain: { name: '', rank: 'admiral' } }, body(Order)),
      failsWith('captain.rank is not an allowed field; captain.name must not be blank'),
    );
  });

  it('refuses a body that is not a JSON object before transforming it', async () => {
    for (const value of [[], [{ reason: 'r', authorized_by: 'a' }], 'text', 42, null, true]) {
      await assert.rejects(sut.transform(value, body(Decision)), failsWith('The request body must be a JSON object'));
    }
  });

  it('refuses prototype-named keys in a body and a query, which the whitelist alone would drop or let through', async () => {
    await assert.rejects(
      sut.transform(JSON.parse('{"reason":"r","authorized_by":"a","__proto__":{"x":1}}'), body(Decision)),
      failsWith('__proto__ is not an allowed field'),
    );
    await assert.rejects(
      sut.transform({ constructor: '1' }, { type: 'query', metatype: Listing, data: '' }),
      failsWith('constructor is not an allowed field'),
    );
  });

  it('refuses control characters and unpaired surrogates in a text field', async () => {
    for (const reason of ['a\u0000b', 'a\nb', 'a\ud800b']) {
      await assert.rejects(
        sut.transform({ reason, authorized_by: 'a' }, body(Decision)),
        failsWith('reason must not contain control characters or unpaired surrogates'),
      );
    }
  });

  it('returns a valid body as an instance of the DTO', async () => {
    const result: unknown = await sut.transform({ reason: 'r', authorized_by: 'a' }, body(Decision));

    assert.ok(result instanceof Decision);
    assert.deepEqual({ ...result }, { reason: 'r', authorized_by: 'a' });
  });

  it('converts query strings and applies the defaults', async () => {
    const result: unknown = await sut.transform({ limit: '5', status: 'active' }, { type: 'query', metatype: Listing, data: '' });

    assert.ok(result instanceof Listing);
    assert.equal(result.limit, 5);
    assert.equal(result.page, undefined, 'page stays unsent, so a route can tell; pageNumber() gives 1');
    assert.equal(result.status, 'active');
  });

  it('gives a query seen before an equal DTO of its own, and validates every other query, refusing an invalid one each time', async () => {
    const pipe = createValidationPipe();
    const query: ArgumentMetadata = { type: 'query', metatype: Listing, data: undefined };
    const first = (await pipe.transform({ limit: '5' }, query)) as Listing;
    const second = (await pipe.transform({ limit: '5' }, query)) as Listing;
    assert.ok(second instanceof Listing);
    assert.notEqual(second, first);
    assert.deepEqual({ ...second }, { ...first });
    first.status = 'active';
    assert.equal(((await pipe.transform({ limit: '5' }, query)) as Listing).status, undefined, "one request's change reaches no other");
    const other: unknown = await pipe.transform({ limit: '6' }, query);
    assert.ok(other instanceof Listing);
    assert.equal(other.limit, 6);
    for (let attempt = 0; attempt < 2; attempt++) {
      await assert.rejects(pipe.transform({ limit: '0' }, query), failsWith('limit must be a whole number from 1 to 100'));
    }
  });
});
