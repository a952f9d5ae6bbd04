import { Controller, Get, Header, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponse, AUDIT_ACTIONS } from '../common';
import { RequiresClearance } from '../auth';
import { AuditChainVerifier } from './audit-chain.verifier';
import { AuditService } from './audit.service';
import { AuditChainVerificationResponseDto } from './dto/audit-chain.dto';
import { AuditEventListResponseDto, ListAuditEventsQueryDto } from './dto/audit-event.dto';
import {
  AuditEventIdParamDto,
  ConsistencyProofQueryDto,
  ConsistencyProofResponseDto,
  InclusionProofQueryDto,
  InclusionProofResponseDto,
} from './dto/audit-proof.dto';
import { AuditTree } from './audit-tree';

const TEXT = 'text/plain; charset=utf-8';
const NO_CHECKPOINT = ['SERVICE_UNAVAILABLE', 'No audit checkpoint has been signed yet; retry in a moment'] as const;

@ApiTags('audit')
@Controller('v1/audit')
export class AuditController {
  constructor(
    private readonly audit: AuditService,
    private readonly chain: AuditChainVerifier,
    private readonly tree: AuditTree,
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

  @Get('checkpoint')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @ApiOperation({
    summary: 'The latest signed checkpoint of the audit tree (clearance 7 or higher)',
    description: 'A C2SP tlog-checkpoint in a signed note (Ed25519): origin, tree size, root hash (base64), a blank line, the signature line. Every instance serves the same one.',
  })
  @ApiOkResponse({ description: 'The note exactly as signed', content: { [TEXT]: { schema: { type: 'string' } } } })
  @ApiErrorResponse(503, ...NO_CHECKPOINT, 'No checkpoint signed yet, or the database is unavailable (SERVICE_UNAVAILABLE)')
  @Header('Content-Type', TEXT)
  async checkpoint(): Promise<string> {
    return (await this.tree.latestCheckpoint()).note;
  }

  @Get('checkpoint/verifier-key')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @ApiOperation({ summary: "The C2SP verifier key that checks the checkpoints' signature (clearance 7 or higher)" })
  @ApiOkResponse({ description: '<key name>+<key id, 8 hex digits>+<base64 of 0x01 and the Ed25519 public key>', content: { [TEXT]: { schema: { type: 'string' } } } })
  @Header('Content-Type', TEXT)
  verifierKey(): string {
    return `${this.tree.verifierKey}\n`;
  }

  @Get('events/:id/inclusion-proof')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @ApiOperation({ summary: 'RFC 9162 proof that the event is in the tree of tree_size events (clearance 7 or higher)' })
  @ApiOkResponse({ type: InclusionProofResponseDto, description: 'The path from the leaf to the root of the tree of tree_size events' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'tree_size 90 is past the end of the tree, which has 57 events', 'A bad id or tree_size, past the tree or not including the event (VALIDATION_ERROR)')
  @ApiErrorResponse(404, 'AUDIT_EVENT_NOT_FOUND', 'Audit event 42 not found', 'No event has this id (AUDIT_EVENT_NOT_FOUND)')
  async inclusionProof(@Param() { id }: AuditEventIdParamDto, @Query() query: InclusionProofQueryDto): Promise<InclusionProofResponseDto> {
    return { status: 'success', data: await this.tree.inclusionProof(id, query.tree_size) };
  }

  @Get('consistency-proof')
  @RequiresClearance(7, { action: AUDIT_ACTIONS.readAudit })
  @ApiOperation({ summary: 'RFC 9162 proof that the tree of second events extends the tree of first events (clearance 7 or higher)' })
  @ApiOkResponse({ type: ConsistencyProofResponseDto, description: 'The consistency path from the tree of first events to that of second' })
  @ApiErrorResponse(400, 'VALIDATION_ERROR', 'second 90 is past the end of the tree, which has 57 events', 'first or second missing or bad, first above second, or second past the tree (VALIDATION_ERROR)')
  async consistencyProof(@Query() { first, second }: ConsistencyProofQueryDto): Promise<ConsistencyProofResponseDto> {
    return { status: 'success', data: await this.tree.consistencyProof(first, second) };
  }
}
