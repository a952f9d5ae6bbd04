import { Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { AuditService } from '../audit';
import { type Actor, pageMeta, pageOffset, type RequestOrigin, ResourceNotFoundError } from '../common';
import { type DB, TransactionRunner } from '../database';
import { Metrics } from '../observability';
import { AssetAccessDeniedError, AssetNotDecommissionedError } from './assets.errors';
import { AssetsRepository } from './assets.repository';
import { ASSET_ACTIONS } from './assets.vocabulary';
import type { AssetDto, AssetPageDto, DecommissionAssetDto, DecommissionedAssetDto, ListAssetsQueryDto, RecommissionAssetDto } from './dto/asset.dto';

@Injectable()
export class AssetsService {
  constructor(
    private readonly assets: AssetsRepository,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
    private readonly metrics: Metrics,
  ) {}

  /**
   * The asset leaves the active records and its audit event is written with it, committed together;
   * an asset that is missing or already decommissioned is refused with a denial, recorded where it is answered.
   * `approvedRequestId` names the decommission request whose approval this is, in the event's details.
   */
  async decommission(
    assetId: string,
    request: DecommissionAssetDto,
    officer: Actor,
    origin: RequestOrigin,
    approvedRequestId?: string,
  ): Promise<DecommissionedAssetDto> {
    const action = ASSET_ACTIONS.decommission;
    const decommissioned = await this.transactions.run(async (trx) => {
      const asset = await this.assets.decommission(trx, assetId, { decommission_reason: request.reason, authorized_by: request.authorized_by });
      if (asset) {
        const details = { request_id: approvedRequestId, reason: request.reason, authorized_by: request.authorized_by };
        await this.audit.append(trx, { action, outcome: 'allowed', actor: officer, origin, details });
      }
      return asset;
    });
    if (!decommissioned) {
      // Named: an approval (POST .../approve) refuses the decommission it would make, not its own step.
      throw AssetAccessDeniedError.notFound(action);
    }
    this.metrics.decommissionAllowed();
    return decommissioned;
  }

  /**
   * A decommissioned asset becomes active again, its audit event committed with the change; an absent
   * asset is refused as DELETE refuses it, an active one with 409. Both refusals are recorded denials.
   * `approvedRequestId` names the request whose approval this is, in the event's details.
   */
  async recommission(assetId: string, request: RecommissionAssetDto, officer: Actor, origin: RequestOrigin, approvedRequestId?: string): Promise<AssetDto> {
    return this.transactions.run(async (trx) => {
      const asset = await this.assets.recommission(trx, assetId);
      if (!asset) {
        // Thrown inside the transaction: an approval that would make this recommission is undone with it.
        throw await this.recommissionRefusal(assetId, trx);
      }
      const details = { request_id: approvedRequestId, reason: request.reason, authorized_by: request.authorized_by };
      await this.audit.append(trx, { action: ASSET_ACTIONS.recommission, outcome: 'allowed', actor: officer, origin, details });
      return asset;
    });
  }

  /**
   * Why the asset cannot be recommissioned: it is active (409), or absent (404, as DELETE answers); named
   * as a recommission's refusal, whichever route asked (an approval's is not its own step's). Read in
   * `executor` when a transaction is open, which on SQLite holds the one connection.
   */
  async recommissionRefusal(assetId: string, executor?: Kysely<DB>): Promise<AssetNotDecommissionedError | AssetAccessDeniedError> {
    const action = ASSET_ACTIONS.recommission;
    return (await this.assets.findById(assetId, executor)) ? new AssetNotDecommissionedError(action) : AssetAccessDeniedError.notFound(action);
  }

  async findOne(assetId: string): Promise<AssetDto> {
    const row = await this.assets.findById(assetId);
    if (!row) {
      throw new ResourceNotFoundError('ASSET_NOT_FOUND', `Asset ${assetId} not found`);
    }
    return row;
  }

  async list(query: ListAssetsQueryDto): Promise<AssetPageDto> {
    const { rows, total } = await this.assets.findPage(query.status, query.limit, pageOffset(query));
    return { assets: rows, ...pageMeta(query, total) };
  }
}
