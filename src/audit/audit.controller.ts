import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponse, AUDIT_ACTIONS } from '../common';
import { RequiresClearance } from '../auth';
import { AuditChainVerifier } from './audit-chain.verifier';
import { AuditService } from './audit.service';
import { AuditChainVerificationResponseDto } from './dto/audit-chain.dto';
import { AuditEventListResponseDto, ListAuditEventsQueryDto } from './dto/audit-event.dto';

@ApiTags('audit')
@Controller('v1/audit')
export class AuditController {
  constructor(
    private readonly audit: AuditService,
    private readonly chain: AuditChainVerifier,
  ) {}

  @Get('events')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @ApiOperation({ summary: 'List audit events in chain order, newest first (clearance 7 or higher)' })
  @ApiOkResponse({ type: AuditEventListResponseDto, description: 'A page of audit events, newest first, and the count of every match' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'outcome must be one of the following values: allowed, denied', 'Invalid outcome, asset_id, limit or page (VALIDATION_ERROR)')
  async list(@Query() query: ListAuditEventsQueryDto): Promise<AuditEventListResponseDto> {
    return { status: 'success', data: await this.audit.list(query) };
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
