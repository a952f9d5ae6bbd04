import type { AuditEntry } from '../../src/audit/audit-entry';
import type { AuditService } from '../../src/audit/audit.service';

/** For unit tests of code that audits: an AuditService that keeps the entries it is given. */
export function recordingAuditService(): { audit: AuditService; entries: AuditEntry[] } {
  const entries: AuditEntry[] = [];
  const audit = {
    record: async (entry: AuditEntry) => {
      entries.push(entry);
    },
  } as unknown as AuditService;
  return { audit, entries };
}
