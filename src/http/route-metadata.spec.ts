import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { routeMetadata } from './route-metadata';

const KEY = 'probe:level';

@SetMetadata(KEY, 'controller')
class Probe {
  @SetMetadata(KEY, 'handler')
  own(this: void): void {}

  inherited(this: void): void {}
}

class Bare {
  plain(this: void): void {}
}

const contextFor = (controller: new () => object, handler: (this: void) => void) => new ExecutionContextHost([], controller, handler);

describe('routeMetadata', () => {
  it("reads the handler's value first, then its controller's, as getAllAndOverride does", () => {
    const read = routeMetadata<string>(new Reflector(), KEY);
    assert.equal(read(contextFor(Probe, Probe.prototype.own)), 'handler');
    assert.equal(read(contextFor(Probe, Probe.prototype.inherited)), 'controller');
    assert.equal(read(contextFor(Bare, Bare.prototype.plain)), undefined);
  });

  it('looks each route up once', (t) => {
    const reflector = new Reflector();
    const lookups = t.mock.method(reflector, 'getAllAndOverride');
    const read = routeMetadata<string>(reflector, KEY);
    for (let i = 0; i < 3; i++) {
      assert.equal(read(contextFor(Probe, Probe.prototype.own)), 'handler');
      assert.equal(read(contextFor(Bare, Bare.prototype.plain)), undefined);
    }
    assert.equal(lookups.mock.callCount(), 2);
  });
});
