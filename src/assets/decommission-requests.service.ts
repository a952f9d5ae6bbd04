import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { type AuditEntry, AuditService, decodeAuditCursor, encodeAuditCursor } from '../audit';
import { type Actor, pageNumber, pageOffset, type RequestOrigin } from '../common';
import { DECOMMISSION_APPROVAL_CONFIG, type DecommissionApprovalConfig } from '../config';
import { type DB, type DecommissionRequestKind, type DecommissionRequestRow, TransactionRunner } from '../database';
import { AssetAccessDeniedError, PreconditionFailedError } from './assets.errors';
import { AssetsService } from './assets.service';
import { DecommissionPolicy } from './decommission-policy';
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
  DecommissionRequestsRepository,
  type RequestDecision,
} from './decommission-requests.repository';
import type { AssetDto, DecommissionAssetDto, DecommissionedAssetDto } from './dto/asset.dto';
import type { DecommissionRequestDto, DecommissionRequestPageDto, ListDecommissionRequestsQueryDto } from './dto/decommission-request.dto';

type Request = Omit<DecommissionRequestRow, 'id'>;
type Decision = 'approve' | 'reject' | 'withdraw';

/** What an approval changed: the asset as the direct route answers it, by the request's kind. */
export type ApprovedChange = { kind: 'decommission'; asset: DecommissionedAssetDto } | { kind: 'recommission'; asset: AssetDto };

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

/** Its events name its asset, whatever path the decision came in on. */
const originOf = (origin: RequestOrigin, request: Request): RequestOrigin => ({ ...origin, assetId: request.asset_id });

/**
 * DECOMMISSION_APPROVAL=required: a decommission, and a recommission that would undo one, take two
 * officers. DELETE (or POST .../recommission) opens a request naming the officer who must approve it
 * (docs/api.md#two-officers-for-a-decommission); that officer's approval changes the asset as the direct
 * route does, in the transaction that marks the request approved.
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
    private readonly policy: DecommissionPolicy,
    @Inject(DECOMMISSION_APPROVAL_CONFIG) private readonly config: DecommissionApprovalConfig,
  ) {}

  /** Whether a DELETE opens a request: the database's policy, as it is now. */
  required(): Promise<boolean> {
    return this.policy.required();
  }

  /**
   * DELETE's (or a recommission's) answer under the policy: a pending request of that kind, refused when
   * the caller names themselves or already holds as many pending requests as one officer may, and as the
   * direct change is when the asset is absent or has the wrong status; 409 while one is pending. With
   * an If-Match, opened only while the asset's record is one it names (else 412, nothing opened).
   */
  async open(
    kind: DecommissionRequestKind,
    assetId: string,
    body: DecommissionAssetDto,
    officer: Actor,
    origin: RequestOrigin,
    ifMatch?: string,
  ): Promise<DecommissionRequestDto> {
    if (body.authorized_by === officer.id) {
      throw new AuthorizedByIsCallerError();
    }
    // A pending request past its expiry must not hold the asset's one pending place.
    const overdue = await this.requests.findPending(assetId, this.transactions.executor());
    if (overdue) {
      await this.expireIfOverdue(overdue, officer, origin);
    }
    const createdAt = new Date();
    const request = {
      requestId: randomUUID(),
      assetId,
      kind,
      requestedBy: officer.id,
      authorizedBy: body.authorized_by,
      reason: body.reason,
      createdAt: createdAt.toISOString(),
      expiresAt: new Date(createdAt.getTime() + this.config.ttlSeconds * 1000).toISOString(),
    };
    const opened = await this.transactions.run(async (trx) => {
      await this.refuseOverLimit(trx, officer, createdAt);
      const expected = await this.assets.recordIfMatched(trx, assetId, ASSET_STATUS_FOR[kind], ifMatch);
      const row = expected === null ? undefined : await this.requests.open(trx, request, expected);
      if (row) {
        const details = { request_id: request.requestId, reason: body.reason, authorized_by: body.authorized_by };
        await this.audit.append(trx, { action: DECOMMISSION_REQUEST_ACTIONS.request, outcome: 'allowed', actor: officer, origin, details });
      }
      return row;
    });
    if (opened) {
      return opened;
    }
    const pending = await this.requests.findPending(assetId, this.transactions.executor());
    if (pending) {
      throw new DecommissionRequestPendingError(assetId, pending.request_id);
    }
    if (ifMatch !== undefined) {
      // The asset changed between If-Match's check and the request's insert (another instance's commit).
      throw new PreconditionFailedError();
    }
    throw kind === 'decommission' ? AssetAccessDeniedError.notFound() : await this.assets.recommissionRefusal(assetId);
  }

  /** Approval by the named officer: the asset is decommissioned or recommissioned as the direct route does it, in the same transaction. */
  async approve(requestId: string, officer: Actor, origin: RequestOrigin): Promise<ApprovedChange> {
    const request = await this.pendingFor('approve', requestId, officer, origin);
    const changed = await this.transactions.run(async (trx): Promise<ApprovedChange | undefined> => {
      if (!(await this.requests.approve(trx, this.decision(request, officer)))) {
        return undefined;
      }
      await this.audit.append(trx, this.entry(DECISION_ACTIONS.approve, request, officer, origin));
      const record = { reason: request.reason, authorized_by: request.authorized_by };
      const assetOrigin = originOf(origin, request);
      return request.kind === 'decommission'
        ? { kind: 'decommission', asset: await this.assets.decommission(request.asset_id, record, officer, assetOrigin, { approvedRequestId: request.request_id }) }
        : { kind: 'recommission', asset: await this.assets.recommission(request.asset_id, record, officer, assetOrigin, { approvedRequestId: request.request_id }) };
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
        await this.audit.append(trx, this.entry(DECISION_ACTIONS[decision], request, officer, origin));
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
      throw new DecommissionRequestForbiddenError(reason, message, request.asset_id);
    }
    if (request.state === 'expired') {
      throw new DecommissionRequestExpiredError(request.expires_at, request.asset_id);
    }
    if (request.state !== 'pending') {
      throw new DecommissionRequestNotPendingError(request.state, request.asset_id);
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
    const entry = this.entry(DECOMMISSION_REQUEST_ACTIONS.expire, request, officer, origin);
    const expired = await this.transactions.run(async (trx) => {
      const row = await this.requests.expire(trx, { requestId: request.request_id, now });
      if (row) {
        await this.audit.append(trx, entry);
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

  /** An allowed step's event: its actor, the request's details, and the request's asset. */
  private entry(action: string, request: Request, officer: Actor, origin: RequestOrigin): AuditEntry {
    return { action, outcome: 'allowed', actor: officer, origin: originOf(origin, request), details: detailsOf(request) };
  }
}
