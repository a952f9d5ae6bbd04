import { Injectable } from '@nestjs/common';
import { AUDIT_ACTIONS, AuditActor, AuditService, RequestOrigin } from '../audit';
import { pageMeta, pageOffset, ResourceNotFoundError } from '../common';
import { TransactionRunner } from '../database';
import { AssetAccessDeniedError } from './assets.errors';
import { AssetsRepository } from './assets.repository';
import type { AssetDto, AssetPageDto, DecommissionAssetDto, DecommissionedAssetDto, ListAssetsQueryDto } from './dto/asset.dto';

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
      throw AssetAccessDeniedError.notFound();
    }
    return decommissioned;
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
