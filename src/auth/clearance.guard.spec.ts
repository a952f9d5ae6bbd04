import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpStatus } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import express, { type Request } from 'express';
import { ApiError, AuditedDenial, UnauthenticatedError } from '../common';
import { denialOf } from '../http';
import { OpenedBy, RequiresClearance } from './auth.decorators';
import { ClearanceInsufficientError } from './auth.errors';
import { CLEARANCE_INSUFFICIENT } from './auth.vocabulary';
import type { AuthenticatedOfficer } from './officer';
import { ClearanceGuard } from './clearance.guard';

/** A module's own refusal, as the assets module gives for a decommission: auth knows no module above it. */
class ProbeRefusedError extends AuditedDenial {
  readonly status = HttpStatus.FORBIDDEN;
  readonly errorCode = 'PROBE_REFUSED';
  readonly denialReason = CLEARANCE_INSUFFICIENT;
}

class Probe {
  @RequiresClearance(7, { action: 'audit.read' })
  readAudit(this: void): void {}

  @RequiresClearance(7, {
    action: 'asset.decommission',
    deniedError: () => new ProbeRefusedError('refused'),
  })
  decommission(this: void): void {}

  unrestricted(this: void): void {}

  @RequiresClearance(7, { action: 'audit.read' })
  @OpenedBy('AUDIT_TILES_PUBLIC')
  readTiles(this: void): void {}
}

@RequiresClearance(5, { action: 'class.level' })
class ClassProbe {
  inherited(this: void): void {}

  @RequiresClearance(9, { action: 'handler.level' })
  overridden(this: void): void {}
}

/** An Express request with only the officer the guard reads. */
function fakeRequest(officer?: AuthenticatedOfficer): Request {
  const request: Request = Object.create(express.request);
  request.officer = officer;
  return request;
}

function contextFor(request: Request, handler: (this: void) => void, controller: new () => object = Probe) {
  return new ExecutionContextHost([request, {}, () => undefined], controller, handler);
}

describe('ClearanceGuard', () => {
  const sut = new ClearanceGuard(new Reflector(), new Set());

  /** The error the guard throws for this request. */
  function refusal(request: Request, handler: (this: void) => void, controller?: new () => object): ApiError {
    try {
      sut.canActivate(contextFor(request, handler, controller));
    } catch (error) {
      assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
      return error;
    }
    assert.fail('the guard let the request through');
  }

  it('lets a route without a clearance requirement through, even without an officer', () => {
    assert.equal(sut.canActivate(contextFor(fakeRequest(), Probe.prototype.unrestricted)), true);
  });

  it('lets a cleared route that the deployment opened through without an officer', () => {
    const opened = new ClearanceGuard(new Reflector(), new Set(['AUDIT_TILES_PUBLIC']));

    assert.equal(opened.canActivate(contextFor(fakeRequest(), Probe.prototype.readTiles)), true);
  });

  it('keeps the clearance of a route that a switch could open while the deployment has not set it', () => {
    assert.ok(refusal(fakeRequest({ id: 'lieutenant-6', clearance: 6 }), Probe.prototype.readTiles) instanceof ClearanceInsufficientError);
  });

  it('refuses clearance 6 on a level-7 route with 403 CLEARANCE_INSUFFICIENT, as a denial of the route\'s action by that officer', () => {
    const request = fakeRequest({ id: 'lieutenant-6', clearance: 6 });
    const error = refusal(request, Probe.prototype.readAudit);

    assert.ok(error instanceof ClearanceInsufficientError, `expected ClearanceInsufficientError, got ${String(error)}`);
    assert.equal(error.status, 403);
    assert.equal(error.errorCode, 'CLEARANCE_INSUFFICIENT');
    assert.equal(error.message, 'Clearance level 7 or higher is required');
    assert.deepEqual(denialOf(error, request), {
      action: 'audit.read',
      reason: 'CLEARANCE_INSUFFICIENT',
      actor: { id: 'lieutenant-6', clearance: 6 },
    });
  });

  it("throws the decorator's deniedError instead of the default, still as a denial", () => {
    const request = fakeRequest({ id: 'cadet-0', clearance: 0 });
    const error = refusal(request, Probe.prototype.decommission);

    assert.ok(error instanceof ProbeRefusedError, `expected ProbeRefusedError, got ${String(error)}`);
    assert.equal(error.status, 403);
    assert.equal(error.errorCode, 'PROBE_REFUSED');
    assert.deepEqual(denialOf(error, request), { action: 'asset.decommission', reason: 'CLEARANCE_INSUFFICIENT', actor: { id: 'cadet-0', clearance: 0 } });
  });

  for (const clearance of [7, 8, 10]) {
    it(`lets clearance ${clearance} through a level-7 route`, () => {
      assert.equal(sut.canActivate(contextFor(fakeRequest({ id: 'admiral', clearance }), Probe.prototype.decommission)), true);
    });
  }

  it("hands the route's action to the request it lets through, for the refusals its handler throws", () => {
    const request = fakeRequest({ id: 'admiral', clearance: 10 });

    assert.equal(sut.canActivate(contextFor(request, Probe.prototype.decommission)), true);

    assert.equal(request.auditedAction, 'asset.decommission');
  });

  it('refuses a cleared route with 401 when no officer is on the request, and it is no denial to record', () => {
    const error = refusal(fakeRequest(), Probe.prototype.readAudit);

    assert.ok(error instanceof UnauthenticatedError, `expected UnauthenticatedError, got ${String(error)}`);
    assert.equal(error.status, 401);
    assert.ok(!(error instanceof AuditedDenial), 'a 401 of its own, not an audited refusal');
  });

  it('applies a controller-level requirement to its handlers', () => {
    const request = fakeRequest({ id: 'sergeant-4', clearance: 4 });
    const error = refusal(request, ClassProbe.prototype.inherited, ClassProbe);

    assert.ok(error instanceof ClearanceInsufficientError);
    assert.equal(request.auditedAction, 'class.level');
    assert.equal(sut.canActivate(contextFor(fakeRequest({ id: 'major-5', clearance: 5 }), ClassProbe.prototype.inherited, ClassProbe)), true);
  });

  it("lets a handler's requirement override its controller's", () => {
    const request = fakeRequest({ id: 'colonel-8', clearance: 8 });
    const error = refusal(request, ClassProbe.prototype.overridden, ClassProbe);

    assert.ok(error instanceof ClearanceInsufficientError);
    assert.equal(error.message, 'Clearance level 9 or higher is required');
    assert.equal(request.auditedAction, 'handler.level');
  });
});
