import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit';
import { type Actor, pageMeta, pageOffset, type RequestOrigin, ResourceNotFoundError } from '../common';
import { Metrics } from '../observability';
import { AssetAccessDeniedError, AssetNotDecommissionedError } from './assets.errors';
import { AssetsRepository, type DecommissionRecord } from './assets.repository';
import { ASSET_ACTIONS } from './assets.vocabulary';
import type { AssetDto, AssetPageDto, DecommissionAssetDto, DecommissionedAssetDto, ListAssetsQueryDto, RecommissionAssetDto } from './dto/asset.dto';

@Injectable()
export class AssetsService {
  /** The conditional UPDATE and its audit event, committed together. */
  private readonly decommissionRecorded;
  private readonly recommissionRecorded;

  constructor(
    private readonly assets: AssetsRepository,
    audit: AuditService,
    private readonly metrics: Metrics,
  ) {
    this.decommissionRecorded = audit.recordedChange((values: DecommissionRecord & { assetId: string }) => assets.decommissionStatement(values));
    this.recommissionRecorded = audit.recordedChange((values: { assetId: string }) => assets.recommissionStatement(values));
  }

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
    const record = { decommission_reason: request.reason, authorized_by: request.authorized_by };
    const decommissioned = await this.decommissionRecorded({ ...record, assetId }, {
      action,
      outcome: 'allowed',
      actor: officer,
      origin,
      details: { request_id: approvedRequestId, reason: request.reason, authorized_by: request.authorized_by },
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
   */
  async recommission(assetId: string, request: RecommissionAssetDto, officer: Actor, origin: RequestOrigin): Promise<AssetDto> {
    const action = ASSET_ACTIONS.recommission;
    const recommissioned = await this.recommissionRecorded({ assetId }, {
      action,
      outcome: 'allowed',
      actor: officer,
      origin,
      details: { reason: request.reason, authorized_by: request.authorized_by },
    });
    if (recommissioned) {
      return recommissioned;
    }
    if (await this.assets.findById(assetId)) {
      throw new AssetNotDecommissionedError();
    }
    throw AssetAccessDeniedError.notFound();
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
