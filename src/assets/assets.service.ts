import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { AuditService } from '../audit';
import { type Actor, pageMeta, pageOffset, type RequestOrigin, ResourceNotFoundError } from '../common';
import { type AssetStatus, type DB, TransactionRunner } from '../database';
import { ifMatchIncludes } from '../http';
import { Metrics } from '../observability';
import { assetEntityTag } from './asset-entity-tag';
import { AssetAccessDeniedError, AssetNotDecommissionedError, BatchDecommissionRefusedError, type BatchOutcome, PreconditionFailedError } from './assets.errors';
import { type AssetRecord, AssetsRepository, type DecommissionedAssetRow } from './assets.repository';
import { ASSET_ACTIONS } from './assets.vocabulary';
import type { BatchDecommissionedDto } from './dto/batch-decommission.dto';
import type { AssetDto, AssetPageDto, DecommissionAssetDto, DecommissionedAssetDto, ListAssetsQueryDto, RecommissionAssetDto } from './dto/asset.dto';

/** How a decision was asked for, beyond its asset and body. */
export interface DecisionTerms {
  /** The decommission request whose approval this is, named in the event's details. */
  approvedRequestId?: string;
  /** The caller's If-Match: the change is made only while the record is one it names (else 412). */
  ifMatch?: string;
}

/** How a batch was asked for, beyond its assets and body: directly (a fresh batch id), or by the approval of a batch request. */
export interface BatchTerms {
  /** The batch request whose approval this is, and the batch id it was opened with. */
  approved?: { requestId: string; batchId: string };
}

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
   * With an If-Match that no longer names the active asset's record, 412 and nothing changed.
   */
  async decommission(assetId: string, request: DecommissionAssetDto, officer: Actor, origin: RequestOrigin, terms: DecisionTerms = {}): Promise<DecommissionedAssetDto> {
    const action = ASSET_ACTIONS.decommission;
    const record = { decommission_reason: request.reason, authorized_by: request.authorized_by };
    const decommissioned = await this.transactions.run(async (trx) => {
      const expected = await this.recordIfMatched(trx, assetId, 'active', terms.ifMatch, action);
      const asset = expected === null ? undefined : await this.assets.decommission(trx, assetId, record, expected);
      if (expected && !asset) {
        throw new PreconditionFailedError(action);
      }
      if (asset) {
        const details = { request_id: terms.approvedRequestId, reason: request.reason, authorized_by: request.authorized_by };
        await this.audit.append(trx, { action, outcome: 'allowed', actor: officer, origin, details });
        // Counted once committed: a transaction open around this one (a keyed request's, an approval's) may yet undo it.
        this.transactions.afterCommit(async () => this.metrics.decommissionAllowed());
      }
      return asset;
    });
    if (!decommissioned) {
      // Named: an approval (POST .../approve) refuses the decommission it would make, not its own step.
      throw AssetAccessDeniedError.notFound(action);
    }
    return decommissioned;
  }

  /**
   * Every asset named leaves the active records, or none does: one transaction, one asset.decommission
   * event each, carrying the batch's id (and, for an approval, its request's), in the order given. The
   * assets are decommissioned by one conditional UPDATE, after their rows are locked in asset_id order on
   * PostgreSQL, so concurrent batches and DELETEs cannot deadlock and each asset is decommissioned once. A
   * batch naming an absent or decommissioned asset changes nothing and says which (404, or 409 when all
   * exist), recorded as a refusal of the decommission.
   */
  async decommissionBatch(assetIds: string[], request: DecommissionAssetDto, officer: Actor, origin: RequestOrigin, terms: BatchTerms = {}): Promise<BatchDecommissionedDto> {
    const batchId = terms.approved?.batchId ?? randomUUID();
    const record = { decommission_reason: request.reason, authorized_by: request.authorized_by };
    const decommissioned = await this.transactions.run(async (trx) => {
      const changed = new Map((await this.assets.decommissionAll(trx, assetIds, record)).map((asset) => [asset.asset_id, asset]));
      const refused = new Set(assetIds.filter((assetId) => !changed.has(assetId)));
      if (refused.size > 0) {
        throw await this.batchRefusal(trx, assetIds, refused, new Map(), 'Nothing was decommissioned');
      }
      const details = { request_id: terms.approved?.requestId, batch_id: batchId, reason: request.reason, authorized_by: request.authorized_by };
      await this.audit.appendAll(
        trx,
        assetIds.map((assetId) => ({ action: ASSET_ACTIONS.decommission, outcome: 'allowed' as const, actor: officer, origin: { ...origin, assetId }, details })),
      );
      this.transactions.afterCommit(async () => this.metrics.decommissionAllowed(assetIds.length));
      return assetIds.map((assetId) => changed.get(assetId) as DecommissionedAssetRow);
    });
    return { batch_id: batchId, decommissioned };
  }

  /**
   * Why a batch's `refused` assets (of `assetIds`, in their order) were refused, read with `executor`:
   * absent, decommissioned, or, still active, held by the pending request `holders` names. Recorded as
   * a refusal of the decommission, whichever route asked.
   */
  async batchRefusal(
    executor: Kysely<DB>,
    assetIds: string[],
    refused: Set<string>,
    holders: Map<string, string>,
    outcome: BatchOutcome,
  ): Promise<BatchDecommissionRefusedError> {
    const statuses = await this.assets.statusesOf(executor, [...refused]);
    const inOrder = assetIds.filter((assetId) => refused.has(assetId));
    const refusal = {
      absent: inOrder.filter((assetId) => !statuses.has(assetId)),
      decommissioned: inOrder.filter((assetId) => statuses.get(assetId) === 'decommissioned'),
      pending: inOrder.filter((assetId) => statuses.get(assetId) === 'active').map((assetId) => ({ assetId, requestId: holders.get(assetId) })),
    };
    return new BatchDecommissionRefusedError(refusal, outcome, ASSET_ACTIONS.decommission);
  }

  /**
   * A decommissioned asset becomes active again, its audit event committed with the change; an absent
   * asset is refused as DELETE refuses it, an active one with 409. Both refusals are recorded denials.
   * With an If-Match that no longer names the decommissioned asset's record, 412 and nothing changed.
   */
  async recommission(assetId: string, request: RecommissionAssetDto, officer: Actor, origin: RequestOrigin, terms: DecisionTerms = {}): Promise<AssetDto> {
    const action = ASSET_ACTIONS.recommission;
    return this.transactions.run(async (trx) => {
      const expected = await this.recordIfMatched(trx, assetId, 'decommissioned', terms.ifMatch, action);
      const asset = expected === null ? undefined : await this.assets.recommission(trx, assetId, expected);
      if (expected && !asset) {
        throw new PreconditionFailedError(action);
      }
      if (!asset) {
        // Thrown inside the transaction: an approval that would make this recommission is undone with it.
        throw await this.recommissionRefusal(assetId, trx);
      }
      const details = { request_id: terms.approvedRequestId, reason: request.reason, authorized_by: request.authorized_by };
      await this.audit.append(trx, { action, outcome: 'allowed', actor: officer, origin, details });
      return asset;
    });
  }

  /**
   * An If-Match's precondition, read inside the decision's transaction: undefined without If-Match (the
   * change is unconditional); null when the asset is absent or has not the status the change needs (its
   * usual refusal answers, as RFC 9110 has a precondition give way to the answer the request would get
   * without it); the record when If-Match names it, for the change to be made only while the row is
   * still that record; else 412, recorded under `action`, or the route's when it names none.
   */
  async recordIfMatched(trx: Kysely<DB>, assetId: string, status: AssetStatus, ifMatch: string | undefined, action?: string): Promise<AssetRecord | null | undefined> {
    if (ifMatch === undefined) {
      return undefined;
    }
    const current = await this.assets.findById(assetId, trx);
    if (!current || current.status !== status) {
      return null;
    }
    if (!ifMatchIncludes(ifMatch, assetEntityTag(current))) {
      throw new PreconditionFailedError(action);
    }
    return current;
  }

  /**
   * Why the asset cannot be recommissioned: it is active (409), or absent (404, as DELETE answers); named
   * as a recommission's refusal, whichever route asked (an approval's is not its own step's). Read in
   * the transaction open in this context, if any, which on SQLite holds the one connection.
   */
  async recommissionRefusal(assetId: string, executor: Kysely<DB> = this.transactions.executor()): Promise<AssetNotDecommissionedError | AssetAccessDeniedError> {
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
