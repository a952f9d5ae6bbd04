import { HttpStatus, Injectable } from '@nestjs/common';
import { AUDIT_ACTIONS, AuditActor, AuditService, RequestOrigin } from '../audit';
import { pageMeta, pageOffset, ResourceNotFoundError } from '../common';
import { type AssetRow, TransactionRunner } from '../database';
import { AssetAccessDeniedError } from './assets.errors';
import { AssetsRepository } from './assets.repository';
import type { AssetDto, AssetPageDto, DecommissionAssetDto, DecommissionedAssetDto, ListAssetsQueryDto } from './dto/asset.dto';

function toAssetDto(row: AssetRow): AssetDto {
  return {
    asset_id: row.asset_id,
    asset_type: row.asset_type,
    former_pilot: row.former_pilot,
    status: row.status,
    decommission_reason: row.decommission_reason,
    decommissioned_at: row.decommissioned_at,
    authorized_by: row.authorized_by,
  };
}

@Injectable()
export class AssetsService {
  constructor(
    private readonly assets: AssetsRepository,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
  ) {}

  /**
   * The asset leaves the active records and its audit event is written in the same transaction;
   * an asset that is missing or already decommissioned is refused and the refusal recorded.
   */
  async decommission(
    assetId: string,
    request: DecommissionAssetDto,
    officer: AuditActor,
    origin: RequestOrigin,
  ): Promise<DecommissionedAssetDto> {
    const event = { action: AUDIT_ACTIONS.decommission, actor: officer, assetId, origin };
    const record = {
      decommission_reason: request.reason,
      authorized_by: request.authorized_by,
      decommissioned_at: new Date().toISOString(),
    };
    const decommissioned = await this.transactions.run(async (trx) => {
      const row = await this.assets.decommission(assetId, record, trx);
      if (row) {
        await this.audit.record({ ...event, outcome: 'allowed' }, trx);
      }
      return row;
    });
    if (!decommissioned) {
      await this.audit.record({ ...event, outcome: 'denied', reason: 'ASSET_NOT_FOUND' });
      throw new AssetAccessDeniedError(HttpStatus.NOT_FOUND);
    }
    return {
      asset_id: decommissioned.asset_id,
      asset_type: decommissioned.asset_type,
      former_pilot: decommissioned.former_pilot,
      ...record,
    };
  }

  async findOne(assetId: string): Promise<AssetDto> {
    const row = await this.assets.findById(assetId);
    if (!row) {
      throw new ResourceNotFoundError('ASSET_NOT_FOUND', `Asset ${assetId} not found`);
    }
    return toAssetDto(row);
  }

  async list(query: ListAssetsQueryDto): Promise<AssetPageDto> {
    const { rows, total } = await this.assets.findPage(query.status, query.limit, pageOffset(query));
    return { assets: rows.map(toAssetDto), ...pageMeta(query, total) };
  }
}
