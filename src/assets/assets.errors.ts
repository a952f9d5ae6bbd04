import { HttpStatus } from '@nestjs/common';
import { CLEARANCE_INSUFFICIENT } from '../auth';
import { AuditedDenial } from '../common';
import type { AssetDenialReason } from './assets.vocabulary';

export const ASSET_ACCESS_DENIED_MESSAGE = 'Asset not found or clearance insufficient';

/** What a caller told "Asset not found or clearance insufficient" was refused for. */
type AccessRefusal = Extract<AssetDenialReason, 'ASSET_NOT_FOUND'> | typeof CLEARANCE_INSUFFICIENT;

/**
 * One message for "no such active asset" and "clearance too low", so a refusal reveals nothing; the
 * audit trail records which (ASSET_NOT_FOUND or CLEARANCE_INSUFFICIENT).
 */
export class AssetAccessDeniedError<Reason extends AccessRefusal = AccessRefusal> extends AuditedDenial {
  readonly errorCode = 'ASSET_ACCESS_DENIED';

  private constructor(
    readonly status: HttpStatus.FORBIDDEN | HttpStatus.NOT_FOUND,
    readonly denialReason: Reason,
    override readonly deniedAction?: string,
  ) {
    super(ASSET_ACCESS_DENIED_MESSAGE);
  }

  static forbidden(this: void): AssetAccessDeniedError<typeof CLEARANCE_INSUFFICIENT> {
    return new AssetAccessDeniedError(HttpStatus.FORBIDDEN, CLEARANCE_INSUFFICIENT);
  }

  /** @param deniedAction the operation refused, when it is not the route's (an approval's decommission) */
  static notFound(this: void, deniedAction?: string): AssetAccessDeniedError<'ASSET_NOT_FOUND'> {
    return new AssetAccessDeniedError(HttpStatus.NOT_FOUND, 'ASSET_NOT_FOUND', deniedAction);
  }
}

export const ASSET_NOT_DECOMMISSIONED_MESSAGE = 'Asset is active; only a decommissioned asset can be recommissioned';

/** A recommission of an active asset: told only to a caller cleared to learn that the asset exists. */
export class AssetNotDecommissionedError extends AuditedDenial {
  readonly status = HttpStatus.CONFLICT;
  readonly errorCode = 'ASSET_NOT_DECOMMISSIONED';
  readonly denialReason: AssetDenialReason = 'ASSET_NOT_DECOMMISSIONED';

  /** @param deniedAction the operation refused, when it is not the route's (an approval's recommission) */
  constructor(override readonly deniedAction?: string) {
    super(ASSET_NOT_DECOMMISSIONED_MESSAGE);
  }
}

export const PRECONDITION_FAILED_MESSAGE = 'The asset changed since it was read: If-Match names none of its current record; read it again and decide on what it is now';

/** A decision whose If-Match no longer names the asset's record: nothing is changed, and the refusal is recorded. */
export class PreconditionFailedError extends AuditedDenial {
  readonly status = HttpStatus.PRECONDITION_FAILED;
  readonly errorCode = 'PRECONDITION_FAILED';
  readonly denialReason: AssetDenialReason = 'PRECONDITION_FAILED';

  /** @param deniedAction the operation refused, when it is not the route's */
  constructor(override readonly deniedAction?: string) {
    super(PRECONDITION_FAILED_MESSAGE);
  }
}

export const BATCH_REFUSED_EXAMPLE = 'Nothing was decommissioned; not found: XYZ-9999; already decommissioned: OLD-0001,OLD-0002';

/**
 * A batch that names an absent asset (404) or, all present, one already decommissioned (409): nothing
 * changed, and the message lists every offending id by why, in the order the batch gave them (100 ids
 * fit the 1024 characters of a message).
 */
export class BatchDecommissionRefusedError extends AuditedDenial {
  readonly errorCode = 'BATCH_DECOMMISSION_REFUSED';
  readonly status: HttpStatus.NOT_FOUND | HttpStatus.CONFLICT;
  readonly denialReason: AssetDenialReason;

  constructor(absent: string[], decommissioned: string[]) {
    const why = [absent.length > 0 ? `not found: ${absent.join(',')}` : '', decommissioned.length > 0 ? `already decommissioned: ${decommissioned.join(',')}` : ''];
    super(`Nothing was decommissioned; ${why.filter(Boolean).join('; ')}`);
    this.status = absent.length > 0 ? HttpStatus.NOT_FOUND : HttpStatus.CONFLICT;
    this.denialReason = absent.length > 0 ? 'ASSET_NOT_FOUND' : 'ASSET_NOT_ACTIVE';
  }
}
