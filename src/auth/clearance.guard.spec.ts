import 'reflect-metadata';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import type { Request } from 'express';
import { AssetAccessDeniedError } from '../assets/assets.errors';
import type { AuditEntry } from '../audit/audit-entry';
import { recordingAuditService } from '../../test/support/recording-audit-service';
import { ClearanceInsufficientError, UnauthenticatedError } from '../common';
import { RequiresClearance } from './auth.decorators';
import type { AuthenticatedOfficer } from './officer';
import { ClearanceGuard } from './clearance.guard';

class Probe {
  @RequiresClearance(7, { action: 'audit.read' })
  readAudit(this: void): void {}

  @RequiresClearance(7, {
    action: 'asset.decommission',
    deniedError: AssetAccessDeniedError.forbidden,
  })
  decommission(this: void): void {}

  unrestricted(this: void): void {}
}

@RequiresClearance(5, { action: 'class.level' })
class ClassProbe {
  inherited(this: void): void {}

  @RequiresClearance(9, { action: 'handler.level' })
  overridden(this: void): void {}
}

function fakeRequest(officer?: AuthenticatedOfficer, params: Record<string, string> = {}) {
  return {
    get: () => undefined,
    params,
    method: 'DELETE',
    originalUrl: '/v1/assets/TIE-0001',
    ip: '10.0.0.7',
    requestId: 'req-1',
    officer,
  } as unknown as Request;
}

function contextFor(request: Request, handler: (this: void) => void, controller: new () => object = Probe) {
  return new ExecutionContextHost([request, {}, () => undefined], controller, handler);
}

describe('ClearanceGuard', () => {
  let calls: AuditEntry[];
  let sut: ClearanceGuard;

  beforeEach(() => {
    const recording = recordingAuditService();
    calls = recording.entries;
    sut = new ClearanceGuard(new Reflector(), recording.audit);
  });

  it('lets a route without a clearance requirement through, even without an officer, and records nothing', async () => {
    assert.equal(await sut.canActivate(contextFor(fakeRequest(), Probe.prototype.unrestricted)), true);
    assert.deepEqual(calls, []);
  });

  it('refuses clearance 6 on a level-7 route with 403 CLEARANCE_INSUFFICIENT and records the denial', async () => {
    const request = fakeRequest({ id: 'lieutenant-6', clearance: 6 }, { asset_id: 'TIE-0001' });

    await assert.rejects(sut.canActivate(contextFor(request, Probe.prototype.readAudit)), (error: unknown) => {
      assert.ok(error instanceof ClearanceInsufficientError, `expected ClearanceInsufficientError, got ${String(error)}`);
      assert.equal(error.status, 403);
      assert.equal(error.errorCode, 'CLEARANCE_INSUFFICIENT');
      assert.equal(error.message, 'Clearance level 7 or higher is required');
      return true;
    });

    assert.deepEqual(calls, [
      {
        action: 'audit.read',
        outcome: 'denied',
        reason: 'CLEARANCE_INSUFFICIENT',
        actor: { id: 'lieutenant-6', clearance: 6 },
        assetId: 'TIE-0001',
        origin: { requestId: 'req-1', ip: '10.0.0.7', method: 'DELETE', path: '/v1/assets/TIE-0001' },
      },
    ]);
  });

  it("throws the decorator's deniedError instead of the default, and still records the denial", async () => {
    const request = fakeRequest({ id: 'cadet-0', clearance: 0 }, { asset_id: 'TIE-0001' });

    await assert.rejects(sut.canActivate(contextFor(request, Probe.prototype.decommission)), (error: unknown) => {
      assert.ok(error instanceof AssetAccessDeniedError, `expected AssetAccessDeniedError, got ${String(error)}`);
      assert.equal(error.status, 403);
      assert.equal(error.errorCode, 'ASSET_ACCESS_DENIED');
      return true;
    });

    assert.deepEqual(
      calls.map((entry) => [entry.action, entry.outcome, entry.reason, entry.actor?.id, entry.assetId]),
      [['asset.decommission', 'denied', 'CLEARANCE_INSUFFICIENT', 'cadet-0', 'TIE-0001']],
    );
  });

  for (const clearance of [7, 8, 10]) {
    it(`lets clearance ${clearance} through a level-7 route without recording anything`, async () => {
      const request = fakeRequest({ id: 'admiral', clearance });

      assert.equal(await sut.canActivate(contextFor(request, Probe.prototype.decommission)), true);
      assert.deepEqual(calls, []);
    });
  }

  it('refuses a cleared route with 401 when no officer is on the request, and records nothing', async () => {
    await assert.rejects(sut.canActivate(contextFor(fakeRequest(), Probe.prototype.readAudit)), (error: unknown) => {
      assert.ok(error instanceof UnauthenticatedError, `expected UnauthenticatedError, got ${String(error)}`);
      assert.equal(error.status, 401);
      return true;
    });
    assert.deepEqual(calls, []);
  });

  it('applies a controller-level requirement to its handlers', async () => {
    const request = fakeRequest({ id: 'sergeant-4', clearance: 4 });

    await assert.rejects(sut.canActivate(contextFor(request, ClassProbe.prototype.inherited, ClassProbe)), ClearanceInsufficientError);
    assert.equal(
      await sut.canActivate(contextFor(fakeRequest({ id: 'major-5', clearance: 5 }), ClassProbe.prototype.inherited, ClassProbe)),
      true,
    );
    assert.deepEqual(
      calls.map((entry) => [entry.action, entry.reason, entry.assetId]),
      [['class.level', 'CLEARANCE_INSUFFICIENT', null]],
    );
  });

  it("lets a handler's requirement override its controller's", async () => {
    const request = fakeRequest({ id: 'colonel-8', clearance: 8 });

    await assert.rejects(sut.canActivate(contextFor(request, ClassProbe.prototype.overridden, ClassProbe)), (error: unknown) => {
      assert.ok(error instanceof ClearanceInsufficientError);
      assert.equal(error.message, 'Clearance level 9 or higher is required');
      return true;
    });
    assert.deepEqual(
      calls.map((entry) => entry.action),
      ['handler.level'],
    );
  });
});
