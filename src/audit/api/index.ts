export { AuditController } from './audit.controller';
export { AuditTilesController } from './audit-tiles.controller';
export { AuditEventsService } from './audit-events.service';
export { auditEventBatches, type AuditExportStart } from './audit-export';
export { AuditQueryRepository, type ShownAuditEvent } from './audit-query.repository';
export { AuditStream } from './audit-stream';
export { decodeAuditCursor, encodeAuditCursor } from './audit-cursor';
export { IsAuditCursor } from './dto/audit-event.dto';
