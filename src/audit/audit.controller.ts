import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponse, AUDIT_ACTIONS } from '../common';
import { RequiresClearance } from '../auth';
import { AuditService } from './audit.service';
import { AuditEventListResponseDto, ListAuditEventsQueryDto } from './dto/audit-event.dto';

@ApiTags('audit')
@Controller('v1/audit/events')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @ApiOperation({ summary: 'List audit events, newest first (clearance 7 or higher)' })
  @ApiOkResponse({ type: AuditEventListResponseDto })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'outcome must be one of the following values: allowed, denied')
  async list(@Query() query: ListAuditEventsQueryDto): Promise<AuditEventListResponseDto> {
    return { status: 'success', data: await this.audit.list(query) };
  }
}
