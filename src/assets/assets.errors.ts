import { HttpStatus } from '@nestjs/common';
import { CLEARANCE_INSUFFICIENT } from '../auth';
import { AuditedDenial } from '../common';
import type { AssetDenialReason, DecommissionRequestDenialReason } from './assets.vocabulary';

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
export const BATCH_REQUEST_REFUSED_EXAMPLE = 'No request was opened; in another pending request: TIE-0001,TIE-0002 (6f1c1d2e-8b7a-4c3d-9e0f-1a2b3c4d5e6f)';

/** An asset of a batch held by another pending request; `requestId` undefined when that request ended between the refusal and its reading. */
export interface PendingAsset {
  assetId: string;
  requestId: string | undefined;
}

/** What a refused batch did not do: decommission its assets, or open the request that would. */
export type BatchOutcome = 'Nothing was decommissioned' | 'No request was opened';

/** Why a batch was refused, each list in the order the batch gave its ids. */
export interface BatchRefusal {
  absent: string[];
  decommissioned: string[];
  /** DECOMMISSION_APPROVAL=required: the assets already in another pending request. */
  pending: PendingAsset[];
}

/** "A,B (request-1), C (request-2)": the assets of each other request together, that request named after them. */
function pendingList(pending: PendingAsset[]): string {
  const byRequest = new Map<string | undefined, string[]>();
  for (const { assetId, requestId } of pending) {
    byRequest.set(requestId, [...(byRequest.get(requestId) ?? []), assetId]);
  }
  return [...byRequest].map(([requestId, assetIds]) => `${assetIds.join(',')} (${requestId ?? 'since ended: send the batch again'})`).join(', ');
}

/**
 * A batch that names an absent asset (404) or, all present, one already decommissioned or, under
 * DECOMMISSION_APPROVAL=required, one in another pending request (409): nothing changed, and the
 * message lists every offending id by why, in the order the batch gave them (100 ids fit the 1024
 * characters of a message; the other requests are named after their ids, as room allows).
 */
export class BatchDecommissionRefusedError extends AuditedDenial {
  readonly errorCode = 'BATCH_DECOMMISSION_REFUSED';
  readonly status: HttpStatus.NOT_FOUND | HttpStatus.CONFLICT;
  readonly denialReason: AssetDenialReason | Extract<DecommissionRequestDenialReason, 'DECOMMISSION_REQUEST_PENDING'>;

  /**
   * @param outcome what did not happen: the batch's decommission, or the request it would open
   * @param deniedAction the operation refused, when it is not the route's (an approval's decommission)
   */
  constructor(
    { absent, decommissioned, pending }: BatchRefusal,
    outcome: BatchOutcome,
    override readonly deniedAction?: string,
  ) {
    const why = [
      absent.length > 0 ? `not found: ${absent.join(',')}` : '',
      decommissioned.length > 0 ? `already decommissioned: ${decommissioned.join(',')}` : '',
      pending.length > 0 ? `in another pending request: ${pendingList(pending)}` : '',
    ];
    super(`${outcome}; ${why.filter(Boolean).join('; ')}`);
    this.status = absent.length > 0 ? HttpStatus.NOT_FOUND : HttpStatus.CONFLICT;
    this.denialReason = absent.length > 0 ? 'ASSET_NOT_FOUND' : decommissioned.length > 0 ? 'ASSET_NOT_ACTIVE' : 'DECOMMISSION_REQUEST_PENDING';
  }
}
