import { Controller, Get, Headers, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiErrorResponse, AUDIT_ACTIONS, ValidationFailedError } from '../common';
import { type AuthenticatedOfficer, CurrentOfficer, RequiresClearance } from '../auth';
import { AuditStream, STREAMS_PER_CLIENT, type StreamSink } from './audit-stream';
import { AuditChainVerifier } from './audit-chain.verifier';
import { AuditService, auditFilterOf } from './audit.service';
import { AuditChainVerificationResponseDto } from './dto/audit-chain.dto';
import { AuditEventListResponseDto, ListAuditEventsQueryDto, StreamAuditEventsQueryDto } from './dto/audit-event.dto';

/** A comment line this often keeps proxies from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;
/** What a stream may have waiting for a client that does not read; past it the client is dropped. */
const MAX_UNSENT_BYTES = 1024 * 1024;
/** How long a replay waits for the client to take what it was sent before dropping it. */
const DRAIN_TIMEOUT_MS = 10_000;

/** A stream's events as Server-Sent Events frames on the response; a client too far behind is disconnected. */
function sseSink(res: Response): StreamSink {
  return {
    send: (events) => {
      if (res.destroyed || res.writableEnded) {
        return false;
      }
      res.write(events.map((event) => `id: ${event.id}\nevent: audit\ndata: ${JSON.stringify(event)}\n\n`).join(''));
      if (res.writableLength > MAX_UNSENT_BYTES) {
        res.destroy();
        return false;
      }
      return true;
    },
    drained: () =>
      new Promise((resolve) => {
        if (res.destroyed || res.writableEnded) {
          return resolve(false);
        }
        if (!res.writableNeedDrain) {
          return resolve(true);
        }
        const settle = (drained: boolean) => {
          clearTimeout(timer);
          res.off('drain', onDrain).off('close', onClose);
          if (!drained) {
            res.destroy();
          }
          resolve(drained);
        };
        const onDrain = () => settle(true);
        const onClose = () => settle(false);
        const timer = setTimeout(() => settle(false), DRAIN_TIMEOUT_MS);
        res.on('drain', onDrain).on('close', onClose);
      }),
    end: () => res.end(),
  };
}

@ApiTags('audit')
@Controller('v1/audit')
export class AuditController {
  constructor(
    private readonly audit: AuditService,
    private readonly chain: AuditChainVerifier,
    private readonly streams: AuditStream,
  ) {}

  @Get('events')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @ApiOperation({ summary: 'List audit events in chain order, newest first (clearance 7 or higher)' })
  @ApiOkResponse({ type: AuditEventListResponseDto, description: 'A page of audit events, newest first, and the count of every match' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'outcome must be one of the following values: allowed, denied', 'Invalid outcome, asset_id, limit or page (VALIDATION_ERROR)')
  async list(@Query() query: ListAuditEventsQueryDto): Promise<AuditEventListResponseDto> {
    return { status: 'success', data: await this.audit.list(query) };
  }

  @Get('events/stream')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @ApiOperation({
    summary: 'Follow the audit trail live, as Server-Sent Events (clearance 7 or higher)',
    description:
      'Each event as `id: <event id>`, `event: audit`, `data: <the event as in the listing>`, oldest first, filtered as the listing is. ' +
      'Last-Event-ID (or after) resumes after that event: what was missed is replayed first, then events follow as they are placed, from any instance, with no gap and no duplicate. ' +
      `A comment line every ${KEEP_ALIVE_MS / 1000} s keeps the connection open; a client that stops reading is disconnected; at most ${STREAMS_PER_CLIENT} streams per officer on an instance (429). ` +
      'An instance that shuts down ends its streams: reconnect with Last-Event-ID.',
  })
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'The id of the last event received', schema: { type: 'string', pattern: '^[0-9]{1,15}$', maxLength: 15 } })
  @ApiOkResponse({ description: 'The stream of audit events', content: { 'text/event-stream': { schema: { type: 'string', maxLength: 1_000_000_000 } } } })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'since must be an ISO 8601 instant with an offset, e.g. 2026-11-21T10:15:30Z', 'Invalid filter, after or Last-Event-ID (VALIDATION_ERROR)')
  async stream(
    @Query() query: StreamAuditEventsQueryDto,
    @Headers('last-event-id') lastEventId: string | undefined,
    @CurrentOfficer() officer: AuthenticatedOfficer,
    @Res() res: Response,
  ): Promise<void> {
    if (lastEventId !== undefined && !/^[0-9]{1,15}$/.test(lastEventId)) {
      throw new ValidationFailedError('Last-Event-ID must be an event id');
    }
    const afterId = lastEventId !== undefined ? Number(lastEventId) : query.after;
    res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'X-Accel-Buffering': 'no' });
    // A refusal (429, 503) still gets the error body: nothing is sent before the subscription stands.
    const unsubscribe = await this.streams.subscribe(auditFilterOf(query), afterId, officer, sseSink(res));
    if (res.destroyed) {
      // The client left during the replay: its close has already been.
      unsubscribe();
      return;
    }
    res.flushHeaders();
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    res.on('close', () => {
      clearInterval(keepAlive);
      unsubscribe();
    });
  }

  @Get('verify')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.verifyAudit })
  @ApiOperation({
    summary: 'Walk the audit hash chain and report whether it is intact (clearance 7 or higher)',
    description: 'Reads the whole chain in batches: the time it takes grows with the number of events.',
  })
  @ApiOkResponse({ type: AuditChainVerificationResponseDto, description: 'The chain was walked: intact, or broken at the event named' })
  async verify(): Promise<AuditChainVerificationResponseDto> {
    return { status: 'success', data: await this.chain.verify() };
  }
}
