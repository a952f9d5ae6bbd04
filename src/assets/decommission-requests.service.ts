import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { type AuditEntry, AuditService, decodeAuditCursor, encodeAuditCursor } from '../audit';
import { type Actor, pageNumber, pageOffset, type RequestOrigin } from '../common';
import { DECOMMISSION_APPROVAL_CONFIG, type DecommissionApprovalConfig } from '../config';
import { type DB, type DecommissionRequestKind, TransactionRunner } from '../database';
import { AssetAccessDeniedError, PreconditionFailedError } from './assets.errors';
import type { AssetRecord } from './assets.repository';
import { AssetsService } from './assets.service';
import { DECOMMISSION_REQUEST_ACTIONS } from './assets.vocabulary';
import {
  AuthorizedByIsCallerError,
  DecommissionRequestExpiredError,
  DecommissionRequestForbiddenError,
  DecommissionRequestLimitError,
  DecommissionRequestNotFoundError,
  DecommissionRequestNotPendingError,
  DecommissionRequestPendingError,
  NOT_AUTHORIZING_OFFICER_MESSAGE,
  NOT_REJECTING_OFFICER_MESSAGE,
  NOT_REQUESTER_MESSAGE,
} from './decommission-requests.errors';
import {
  ASSET_STATUS_FOR,
  type DecommissionRequestFilter,
  type DecommissionRequestRecord,
  DecommissionRequestsRepository,
  type NewDecommissionRequest,
  type RequestDecision,
} from './decommission-requests.repository';
import type { AssetDto, DecommissionAssetDto, DecommissionedAssetDto } from './dto/asset.dto';
import type { BatchDecommissionedDto } from './dto/batch-decommission.dto';
import type { DecommissionRequestDto, DecommissionRequestPageDto, ListDecommissionRequestsQueryDto } from './dto/decommission-request.dto';

type Request = DecommissionRequestRecord;
type Decision = 'approve' | 'reject' | 'withdraw';

/** What a request is asked to hold: its kind, its assets in the order given, and a batch's id (null unless opened by a batch). */
type AskedRequest = Pick<NewDecommissionRequest, 'kind' | 'assetIds' | 'batchId'>;

/**
 * What an approval changed, as the direct route answers it: the asset, by the request's kind; or, for a
 * request opened by a batch, the batch's decommissions.
 */
export type ApprovedChange = { kind: 'decommission'; asset: DecommissionedAssetDto } | { kind: 'recommission'; asset: AssetDto } | { kind: 'batch'; batch: BatchDecommissionedDto };

/**
 * The clearance that may reject any pending request, named in it or not: the way out when requests name
 * officers who do not exist or do not answer. It can only stop a change, never make one, so the rule
 * that a change takes two officers stays whole.
 */
const OVERSEER_CLEARANCE = 9;
const isOverseer = (officer: Actor) => officer.clearance >= OVERSEER_CLEARANCE;

/** Who is refused a decision, and what they are told. */
const FORBIDDEN = {
  approve: ['NOT_AUTHORIZING_OFFICER', NOT_AUTHORIZING_OFFICER_MESSAGE],
  reject: ['NOT_AUTHORIZING_OFFICER', NOT_REJECTING_OFFICER_MESSAGE],
  withdraw: ['NOT_REQUESTER', NOT_REQUESTER_MESSAGE],
} as const;

const DECISION_ACTIONS = {
  approve: DECOMMISSION_REQUEST_ACTIONS.approve,
  reject: DECOMMISSION_REQUEST_ACTIONS.reject,
  withdraw: DECOMMISSION_REQUEST_ACTIONS.withdraw,
} as const;

/** The request's own details in every event of its life. */
const detailsOf = (request: Request) => ({ request_id: request.request_id, reason: request.reason, authorized_by: request.authorized_by });

/** Its events name their asset, whatever path the decision came in on. */
const originOf = (origin: RequestOrigin, assetId: string): RequestOrigin => ({ ...origin, assetId });

/** The asset a refusal about the request is recorded on: its one asset; none for a request of several, as for a batch. */
const recordedAssetOf = (request: Request) => (request.asset_ids.length === 1 ? request.asset_ids[0] : undefined);

/**
 * DECOMMISSION_APPROVAL=required: a decommission, and a recommission that would undo one, take two
 * officers. DELETE (or POST .../recommission, or a batch) opens a request naming the officer who must
 * approve it (docs/api.md#two-officers-for-a-decommission); that officer's approval changes the assets as
 * the direct route does, in the transaction that marks the request approved. Each step is recorded once
 * for each asset the request holds, so each asset's trail tells its whole story.
 * Every state lives in the database, so any instance may take any step; each step is one conditional
 * change recorded with its audit event, so of racing steps exactly one takes effect. A request past its
 * expiry is marked expired, with its event, by the first request that reads it (no timers).
 */
@Injectable()
export class DecommissionRequestsService {
  constructor(
    private readonly requests: DecommissionRequestsRepository,
    private readonly assets: AssetsService,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
    @Inject(DECOMMISSION_APPROVAL_CONFIG) private readonly config: DecommissionApprovalConfig,
  ) {}

  /**
   * DELETE's (or a recommission's) answer under the policy: a pending request of that kind, refused when
   * the caller names themselves or already holds as many pending requests as one officer may, and as the
   * direct change is when the asset is absent or has the wrong status; 409 while one is pending. With
   * an If-Match, opened only while the asset's record is one it names (else 412, nothing opened).
   */
  open(kind: DecommissionRequestKind, assetId: string, body: DecommissionAssetDto, officer: Actor, origin: RequestOrigin, ifMatch?: string): Promise<DecommissionRequestDto> {
    return this.openRequest({ kind, assetIds: [assetId], batchId: null }, body, officer, origin, ifMatch);
  }

  /**
   * A batch's answer under the policy: one request of kind decommission holding every asset, refused as
   * DELETE's is (authorized_by, the officer's limit: the batch counts as one request), and, all or none,
   * when any asset is absent, not active or in another pending request (BATCH_DECOMMISSION_REFUSED,
   * listing each). If-Match is not taken on a batch.
   */
  openBatch(assetIds: string[], body: DecommissionAssetDto, officer: Actor, origin: RequestOrigin): Promise<DecommissionRequestDto> {
    return this.openRequest({ kind: 'decommission', assetIds, batchId: randomUUID() }, body, officer, origin);
  }

  /**
   * Approval by the named officer, once: the assets are decommissioned (or the asset recommissioned) as
   * the direct route does it, in the transaction that marks the request approved; an asset that cannot
   * be changed now fails the approval whole, and the request stays pending.
   */
  async approve(requestId: string, officer: Actor, origin: RequestOrigin): Promise<ApprovedChange> {
    const request = await this.pendingFor('approve', requestId, officer, origin);
    const changed = await this.transactions.run(async (trx): Promise<ApprovedChange | undefined> => {
      if (!(await this.requests.approve(trx, this.decision(request, officer)))) {
        return undefined;
      }
      await this.record(trx, DECISION_ACTIONS.approve, request, officer, origin);
      return this.change(request, officer, origin);
    });
    return changed ?? this.refuseDecided('approve', requestId, officer, origin);
  }

  async reject(requestId: string, officer: Actor, origin: RequestOrigin): Promise<DecommissionRequestDto> {
    return this.decide('reject', requestId, officer, origin);
  }

  async withdraw(requestId: string, officer: Actor, origin: RequestOrigin): Promise<DecommissionRequestDto> {
    return this.decide('withdraw', requestId, officer, origin);
  }

  async findOne(requestId: string, officer: Actor, origin: RequestOrigin): Promise<DecommissionRequestDto> {
    return this.current(requestId, officer, origin);
  }

  /** Newest first; overdue pending requests are marked expired first, so none is listed as pending. */
  async list(query: ListDecommissionRequestsQueryDto, officer: Actor, origin: RequestOrigin): Promise<DecommissionRequestPageDto> {
    for (const overdue of await this.requests.findOverdue(new Date().toISOString())) {
      await this.expireIfOverdue(overdue, officer, origin);
    }
    const filter: DecommissionRequestFilter =
      query.awaiting === 'me' ? { asset_id: query.asset_id, state: 'pending', authorized_by: officer.id } : { asset_id: query.asset_id, state: query.state };
    const beforeId = query.cursor === undefined ? undefined : decodeAuditCursor(query.cursor);
    const [{ rows, lastId }, total] = await Promise.all([
      this.requests.findPage(filter, beforeId === undefined ? { limit: query.limit, offset: pageOffset(query) } : { limit: query.limit, beforeId }),
      beforeId === undefined ? this.requests.countMatching(filter) : null,
    ]);
    return {
      requests: rows,
      total_count: total,
      page: beforeId === undefined ? pageNumber(query) : null,
      per_page: query.limit,
      next_cursor: lastId === undefined ? null : encodeAuditCursor(lastId),
    };
  }

  private async decide(decision: 'reject' | 'withdraw', requestId: string, officer: Actor, origin: RequestOrigin): Promise<DecommissionRequestDto> {
    const request = await this.pendingFor(decision, requestId, officer, origin);
    const decided = await this.transactions.run(async (trx) => {
      const values = this.decision(request, officer);
      const row = decision === 'reject' ? await this.requests.reject(trx, values, isOverseer(officer)) : await this.requests.withdraw(trx, values);
      if (row) {
        await this.record(trx, DECISION_ACTIONS[decision], request, officer, origin);
      }
      return row;
    });
    return decided ?? this.refuseDecided(decision, requestId, officer, origin);
  }

  /** The request, if the officer may take this decision on it and it is still pending; else the refusal, recorded. */
  private async pendingFor(decision: Decision, requestId: string, officer: Actor, origin: RequestOrigin): Promise<Request> {
    const request = await this.current(requestId, officer, origin);
    const party = decision === 'withdraw' ? request.requested_by : request.authorized_by;
    if (officer.id !== party && !(decision === 'reject' && isOverseer(officer))) {
      const [reason, message] = FORBIDDEN[decision];
      throw new DecommissionRequestForbiddenError(reason, message, recordedAssetOf(request));
    }
    if (request.state === 'expired') {
      throw new DecommissionRequestExpiredError(request.expires_at, recordedAssetOf(request));
    }
    if (request.state !== 'pending') {
      throw new DecommissionRequestNotPendingError(request.state, recordedAssetOf(request));
    }
    return request;
  }

  /** A decision that changed nothing: another one, or the expiry, came first. Says which, as a recorded refusal. */
  private async refuseDecided(decision: Decision, requestId: string, officer: Actor, origin: RequestOrigin): Promise<never> {
    await this.pendingFor(decision, requestId, officer, origin);
    throw new Error(`decommission request ${requestId} is pending, yet its ${decision} changed nothing`);
  }

  /** The request as it is now: marked expired first when it is overdue; 404 when there is none. */
  private async current(requestId: string, officer: Actor, origin: RequestOrigin): Promise<Request> {
    const request = await this.requests.findById(requestId, this.transactions.executor());
    if (!request) {
      throw new DecommissionRequestNotFoundError(requestId);
    }
    return this.expireIfOverdue(request, officer, origin);
  }

  private async expireIfOverdue(request: Request, officer: Actor, origin: RequestOrigin): Promise<Request> {
    const now = new Date().toISOString();
    if (request.state !== 'pending' || request.expires_at > now) {
      return request;
    }
    const expired = await this.transactions.run(async (trx) => {
      const row = await this.requests.expire(trx, { requestId: request.request_id, now });
      if (row) {
        await this.record(trx, DECOMMISSION_REQUEST_ACTIONS.expire, request, officer, origin);
      }
      return row;
    });
    // Undefined when another request (on any instance) marked it first.
    return expired ?? { ...request, state: 'expired', decided_at: request.expires_at };
  }

  /** Refuses a new request when the officer already holds as many pending ones as one officer may (counted in turn with the officer's other requests). */
  private async refuseOverLimit(trx: Kysely<DB>, officer: Actor, now: Date): Promise<void> {
    const { count, firstExpiry } = await this.requests.pendingOfRequester(trx, officer.id, now.toISOString());
    if (count >= this.config.requestsPerOfficer) {
      throw new DecommissionRequestLimitError(this.config.requestsPerOfficer, (Date.parse(firstExpiry ?? now.toISOString()) - now.getTime()) / 1000);
    }
  }

  private decision(request: Request, officer: Actor): RequestDecision {
    return { requestId: request.request_id, officer: officer.id, decidedAt: new Date().toISOString() };
  }

  /** An allowed step, recorded once for each asset the request holds: its actor, the request's details, and that asset. */
  private async record(trx: Kysely<DB>, action: string, request: Request, officer: Actor, origin: RequestOrigin): Promise<void> {
    for (const assetId of request.asset_ids) {
      const entry: AuditEntry = { action, outcome: 'allowed', actor: officer, origin: originOf(origin, assetId), details: detailsOf(request) };
      await this.audit.append(trx, entry);
    }
  }

  /**
   * Opens the request, all or none: refused before anything when authorized_by is the caller; the
   * pending requests over its assets that are past their expiry are marked expired first, so they do not
   * hold them; then, in one transaction, the officer's limit, If-Match (a request of one asset) and each
   * asset held (migration 015's index keeps it in one pending request at most). Any asset not held rolls
   * the request back and is refused with its reason.
   */
  private async openRequest(asked: AskedRequest, body: DecommissionAssetDto, officer: Actor, origin: RequestOrigin, ifMatch?: string): Promise<DecommissionRequestDto> {
    if (body.authorized_by === officer.id) {
      throw new AuthorizedByIsCallerError();
    }
    for (const overdue of await this.requests.findPendingHolding(asked.assetIds, this.transactions.executor())) {
      await this.expireIfOverdue(overdue, officer, origin);
    }
    const createdAt = new Date();
    const values: NewDecommissionRequest = {
      ...asked,
      requestId: randomUUID(),
      requestedBy: officer.id,
      authorizedBy: body.authorized_by,
      reason: body.reason,
      createdAt: createdAt.toISOString(),
      expiresAt: new Date(createdAt.getTime() + this.config.ttlSeconds * 1000).toISOString(),
    };
    return this.transactions.run(async (trx) => {
      await this.refuseOverLimit(trx, officer, createdAt);
      const expected = await this.assets.recordIfMatched(trx, asked.assetIds[0], ASSET_STATUS_FOR[asked.kind], ifMatch);
      const opened = expected === null ? undefined : await this.requests.open(trx, values, expected);
      if (!opened || opened.refused.length > 0) {
        // Thrown inside the transaction: the request goes with it.
        throw await this.openingRefusal(trx, asked, opened?.refused ?? asked.assetIds, expected);
      }
      await this.record(trx, DECOMMISSION_REQUEST_ACTIONS.request, opened.request, officer, origin);
      return opened.request;
    });
  }

  /**
   * Why the request could not hold the `refused` assets, read in its transaction. A batch: each refused
   * asset listed by why. One asset: another pending request holds it (409 naming it); it changed since
   * If-Match's check (another instance's commit: 412); or it is absent or of the wrong status, answered
   * as the direct change answers it.
   */
  private async openingRefusal(trx: Kysely<DB>, asked: AskedRequest, refused: string[], expected: AssetRecord | null | undefined): Promise<Error> {
    const holders = await this.requests.holdersOf(refused, trx);
    if (asked.batchId !== null) {
      return this.assets.batchRefusal(trx, asked.assetIds, new Set(refused), holders, 'No request was opened');
    }
    const [assetId] = asked.assetIds;
    const holder = holders.get(assetId);
    if (holder !== undefined) {
      return new DecommissionRequestPendingError(assetId, holder);
    }
    if (expected) {
      return new PreconditionFailedError();
    }
    return asked.kind === 'decommission' ? AssetAccessDeniedError.notFound() : this.assets.recommissionRefusal(assetId, trx);
  }

  /** What the approval changes, as the direct route would: a batch request's assets, or its one asset by its kind; each event names the request. */
  private async change(request: Request, officer: Actor, origin: RequestOrigin): Promise<ApprovedChange> {
    const record = { reason: request.reason, authorized_by: request.authorized_by };
    if (request.batch_id !== null) {
      const approved = { requestId: request.request_id, batchId: request.batch_id };
      return { kind: 'batch', batch: await this.assets.decommissionBatch(request.asset_ids, record, officer, origin, { approved }) };
    }
    const assetOrigin = originOf(origin, request.asset_id);
    const terms = { approvedRequestId: request.request_id };
    return request.kind === 'decommission'
      ? { kind: 'decommission', asset: await this.assets.decommission(request.asset_id, record, officer, assetOrigin, terms) }
      : { kind: 'recommission', asset: await this.assets.recommission(request.asset_id, record, officer, assetOrigin, terms) };
  }
}
