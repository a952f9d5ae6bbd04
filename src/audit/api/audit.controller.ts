import { Controller, Get, Header, Headers, Param, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiErrorResponse, ValidationFailedError } from '../../common';
import { AUDIT_ACTIONS } from '../audit.vocabulary';
import { type AuthenticatedOfficer, BearerToken, CurrentOfficer, OpenedBy, RequiresClearance, TokenRefusedError, TokenService } from '../../auth';
import { AuditStream, STREAMS_PER_CLIENT } from './audit-stream';
import { AuditTree, AuditWitnesses, ChainVerificationGate, RETRY_AFTER_MAX_SECONDS, VERIFICATIONS_BUSY_MESSAGE } from '../trail';
import { AuditEventsService, auditFilterOf } from './audit-events.service';
import { AuditChainVerificationResponseDto } from './dto/audit-chain.dto';
import { AuditEventListResponseDto, ListAuditEventsQueryDto, StreamAuditEventsQueryDto } from './dto/audit-event.dto';
import {
  AuditEventIdParamDto,
  ConsistencyProofQueryDto,
  ConsistencyProofResponseDto,
  InclusionProofQueryDto,
  InclusionProofResponseDto,
} from './dto/audit-proof.dto';
import { KEEP_ALIVE_MS, SseSink } from './sse-sink';

const TEXT = 'text/plain; charset=utf-8';
/**
 * With AUDIT_LOG_ORIGIN at most 255 characters: a verifier key is at most 310 characters, a checkpoint
 * (origin, size, root, blank line, one signature line of the origin and 92 base64 characters) at most
 * 671, and each of at most 32 cosignature lines (a name of at most 255 characters, 104 base64) 363 more.
 */
const VERIFIER_KEY_SCHEMA = { type: 'string', maxLength: 512 } as const;
const CHECKPOINT_SCHEMA = { type: 'string', maxLength: 12_288 } as const;
const NO_CHECKPOINT = ['SERVICE_UNAVAILABLE', 'No audit checkpoint has been signed yet; retry in a moment'] as const;


@ApiTags('audit')
@Controller('v1/audit')
export class AuditController {
  constructor(
    private readonly events: AuditEventsService,
    private readonly chain: ChainVerificationGate,
    private readonly tree: AuditTree,
    private readonly witnesses: AuditWitnesses,
    private readonly streams: AuditStream,
    private readonly tokens: TokenService,
  ) {}

  @Get('events')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @ApiOperation({
    summary: 'List audit events in chain order, newest first (clearance 7 or higher)',
    description:
      'The filters combine: actor, action, outcome, asset_id, and occurred_at from since (included) to until (excluded). Each event carries its details and leaf_hash. ' +
      "Page by cursor (the previous page's next_cursor; total_count and page are then null) or by page, not both.",
  })
  @ApiOkResponse({ type: AuditEventListResponseDto, description: 'A page of audit events, newest first, and the count of every match' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'outcome must be one of the following values: allowed, denied', 'Invalid outcome, asset_id, limit or page (VALIDATION_ERROR)')
  async list(@Query() query: ListAuditEventsQueryDto): Promise<AuditEventListResponseDto> {
    return { status: 'success', data: await this.events.list(query) };
  }

  @Get('events/stream')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @ApiOperation({
    summary: 'Follow the audit trail live, as Server-Sent Events (clearance 7 or higher)',
    description:
      'Each event as `id: <event id>`, `event: audit`, `data: <the event as in the listing>`, oldest first, filtered as the listing is. ' +
      'Last-Event-ID (or after) resumes after that event: what was missed is replayed first, then events follow as they are placed, from any instance, with no gap and no duplicate. ' +
      `A comment line every ${KEEP_ALIVE_MS / 1000} s keeps the connection open; a client that stops reading is disconnected; at most ${STREAMS_PER_CLIENT} streams per officer on an instance (429). ` +
      'A stream lasts while its token is accepted: at its expiry, or once its key is withdrawn, it sends `event: end` with `data: {"reason":"token_expired"}` (or `token_invalid`) and closes; ' +
      'reconnect with a fresh token and Last-Event-ID. An instance that shuts down ends its streams: reconnect with Last-Event-ID.',
  })
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'The id of the last event received', schema: { type: 'string', pattern: '^[0-9]{1,15}$', maxLength: 15 } })
  @ApiOkResponse({ description: 'The stream of audit events', content: { 'text/event-stream': { schema: { type: 'string', maxLength: 1_000_000_000 } } } })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'since must be an ISO 8601 instant with an offset, e.g. 2026-11-21T10:15:30Z', 'Invalid filter, after or Last-Event-ID (VALIDATION_ERROR)')
  async stream(
    @Query() query: StreamAuditEventsQueryDto,
    @Headers('last-event-id') lastEventId: string | undefined,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @BearerToken() token: string,
    @Res() res: Response,
  ): Promise<void> {
    if (lastEventId !== undefined && !/^[0-9]{1,15}$/.test(lastEventId)) {
      throw new ValidationFailedError('Last-Event-ID must be an event id');
    }
    const afterId = lastEventId !== undefined ? Number(lastEventId) : query.after;
    // The guard accepted the token a moment ago; the stream needs to know until when.
    const standing = await this.tokens.standing(token);
    if (!standing.accepted) {
      throw new TokenRefusedError(standing.reason, 'The bearer token is no longer accepted');
    }
    res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'X-Accel-Buffering': 'no' });
    const sink = new SseSink(res, token, this.tokens, standing);
    // A refusal (429, 503) still gets the error body: nothing is sent before the subscription stands.
    const unsubscribe = await this.streams.subscribe(auditFilterOf(query), afterId, officer, sink);
    if (sink.closed()) {
      // The client left, or the token expired, during the replay: its close has already been.
      unsubscribe();
      return;
    }
    res.on('close', unsubscribe);
    sink.start();
  }

  @Get('verify')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.verifyAudit })
  @ApiOperation({
    summary: 'Walk the audit hash chain and report whether it is intact (clearance 7 or higher)',
    description:
      'Reads the whole chain in batches: the time it takes grows with the number of events. ' +
      'Requests that arrive while a walk of the same trail head runs get that walk\'s answer; a walk of another head starts only while fewer than AUDIT_VERIFICATIONS_MAX run on the instance (503 otherwise).',
  })
  @ApiOkResponse({ type: AuditChainVerificationResponseDto, description: 'The chain was walked: intact, or broken at the event named' })
  @ApiErrorResponse(
    503,
    'AUDIT_VERIFICATIONS_BUSY',
    VERIFICATIONS_BUSY_MESSAGE,
    'AUDIT_VERIFICATIONS_MAX walks of other trail heads already run on this instance (AUDIT_VERIFICATIONS_BUSY)',
    { 'Retry-After': { description: 'Seconds the last walk took: about when one ends', schema: { type: 'integer', format: 'int32', minimum: 1, maximum: RETRY_AFTER_MAX_SECONDS } } },
  )
  async verify(): Promise<AuditChainVerificationResponseDto> {
    return { status: 'success', data: await this.chain.verify() };
  }

  @Get('checkpoint')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @OpenedBy('AUDIT_TILES_PUBLIC')
  @ApiOperation({
    summary: 'The latest signed checkpoint of the audit tree, with its witness cosignatures (clearance 7 or higher, or public where AUDIT_TILES_PUBLIC=true)',
    description:
      'A C2SP tlog-checkpoint in a signed note (Ed25519): origin, tree size, root hash (base64), a blank line, the signature line. Every instance serves the same one. ' +
      'With AUDIT_WITNESS_QUORUM above 0, it is the latest checkpoint that at least that many of AUDIT_WITNESSES cosigned, and each cosignature (C2SP tlog-cosignature, Ed25519) follows the signature line as a line of its own; a newer checkpoint not yet cosigned by the quorum is not served. ' +
      'The checkpoint of the tlog-tiles under /v1/audit/tile; like every answer but the tiles, served with `Cache-Control: no-store`, as it changes whenever the tree grows.',
  })
  @ApiOkResponse({ description: 'The note as signed, then the witnesses\' cosignature lines', content: { [TEXT]: { schema: CHECKPOINT_SCHEMA } } })
  @ApiErrorResponse(503, ...NO_CHECKPOINT, 'no audit checkpoint signed yet, or none cosigned by the witness quorum yet (SERVICE_UNAVAILABLE)')
  @Header('Content-Type', TEXT)
  async checkpoint(): Promise<string> {
    return this.witnesses.servedCheckpoint();
  }

  @Get('checkpoint/verifier-key')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @ApiOperation({
    summary: "The C2SP verifier key that checks the checkpoints' signature (clearance 7 or higher)",
    description: 'A C2SP signed-note verifier key (Ed25519), the same from every instance: with it, a checkpoint fetched earlier can be checked anywhere, without trusting the instance that served it.',
  })
  @ApiOkResponse({ description: '<key name>+<key id, 8 hex digits>+<base64 of 0x01 and the Ed25519 public key>', content: { [TEXT]: { schema: VERIFIER_KEY_SCHEMA } } })
  @Header('Content-Type', TEXT)
  verifierKey(): string {
    return `${this.tree.verifierKey}\n`;
  }

  @Get('events/:id/inclusion-proof')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @ApiOperation({
    summary: 'RFC 9162 proof that the event is in the tree of tree_size events (clearance 7 or higher)',
    description: "The audit path (RFC 9162, 2.1.3) from the event's leaf hash to the root hash of the tree of the first tree_size events: checked against a signed checkpoint of that size, it shows the event is recorded there.",
  })
  @ApiOkResponse({ type: InclusionProofResponseDto, description: 'The path from the leaf to the root of the tree of tree_size events' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'tree_size 90 is past the end of the tree, which has 57 events', 'A bad id or tree_size, past the tree or not including the event (VALIDATION_ERROR)')
  @ApiErrorResponse(404, 'AUDIT_EVENT_NOT_FOUND', 'Audit event 42 not found', 'No event has this id (AUDIT_EVENT_NOT_FOUND)')
  async inclusionProof(@Param() { id }: AuditEventIdParamDto, @Query() query: InclusionProofQueryDto): Promise<InclusionProofResponseDto> {
    return { status: 'success', data: await this.tree.inclusionProof(id, query.tree_size) };
  }

  @Get('consistency-proof')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @ApiOperation({
    summary: 'RFC 9162 proof that the tree of second events extends the tree of first events (clearance 7 or higher)',
    description: 'The consistency path (RFC 9162, 2.1.4) between the trees of the first `first` and `second` events: checked against two signed checkpoints, it shows the trail was only appended to between them.',
  })
  @ApiOkResponse({ type: ConsistencyProofResponseDto, description: 'The consistency path from the tree of first events to that of second' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'second 90 is past the end of the tree, which has 57 events', 'first or second missing or bad, first above second, or second past the tree (VALIDATION_ERROR)')
  async consistencyProof(@Query() { first, second }: ConsistencyProofQueryDto): Promise<ConsistencyProofResponseDto> {
    return { status: 'success', data: await this.tree.consistencyProof(first, second) };
  }
}
