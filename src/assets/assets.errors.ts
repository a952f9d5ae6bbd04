import { HttpStatus } from '@nestjs/common';
import { ApiError } from '../common';

export const ASSET_ACCESS_DENIED_MESSAGE = 'Asset not found or clearance insufficient';

/** One message for "no such active asset" and "clearance too low", so a refusal reveals nothing. */
export class AssetAccessDeniedError extends ApiError {
  readonly errorCode = 'ASSET_ACCESS_DENIED';

  private constructor(readonly status: HttpStatus.FORBIDDEN | HttpStatus.NOT_FOUND) {
    super(ASSET_ACCESS_DENIED_MESSAGE);
  }

  static forbidden(this: void): AssetAccessDeniedError {
    return new AssetAccessDeniedError(HttpStatus.FORBIDDEN);
  }

  static notFound(this: void): AssetAccessDeniedError {
    return new AssetAccessDeniedError(HttpStatus.NOT_FOUND);
  }
}

export const ASSET_NOT_DECOMMISSIONED_MESSAGE = 'Asset is active; only a decommissioned asset can be recommissioned';

/** A recommission of an active asset: told only to a caller cleared to learn that the asset exists. */
export class AssetNotDecommissionedError extends ApiError {
  readonly status = HttpStatus.CONFLICT;
  readonly errorCode = 'ASSET_NOT_DECOMMISSIONED';

  constructor() {
    super(ASSET_NOT_DECOMMISSIONED_MESSAGE);
  }
}
