import { hostname } from 'node:os';
import type { ShownAuditEvent } from '../../audit';

/**
 * One audit event as an RFC 5424 syslog message, framed by octet counting (RFC 6587 3.4.1, which RFC 5425
 * uses over TLS too): `<length in bytes> <message>`, so values may hold any character, newlines included.
 */

export const SYSLOG_APP_NAME = 'fleet-registry';

/**
 * The SD-ID of the event's fields: a private name (RFC 5424 7.2.2), under 32473, the enterprise number
 * RFC 5612 reserves for documentation, as this service has no number of its own.
 */
export const AUDIT_SD_ID = 'audit@32473';

/**
 * Facility 13, "log audit" (RFC 5424 table 1): these are the entries of an audit trail. auth (4) and
 * authpriv (10) are the login system's, and receivers often file them with sshd's and su's lines.
 */
const FACILITY_LOG_AUDIT = 13;
const SEVERITY_WARNING = 4;
const SEVERITY_NOTICE = 5;

/** The fields carried in the structured data, in this order; null ones are left out. */
const SD_FIELDS = ['id', 'outcome', 'actor', 'asset_id', 'reason', 'leaf_hash'] as const;

const NILVALUE = '-';
const UTF8_BOM = '\uFEFF';

/** Where the messages come from, as the header names it: `-` for what the header cannot carry. */
export interface SyslogOrigin {
  hostname: string;
  procId: string;
}

/** This host and process: HOSTNAME is 1 to 255 printable US-ASCII characters (RFC 5424 6.2.4). */
export function syslogOrigin(host = hostname(), pid = process.pid): SyslogOrigin {
  return { hostname: printableAscii(host, 255) ?? NILVALUE, procId: String(pid) };
}

/** The frame written to the connection: the message's length in bytes, a space, the message. */
export function syslogFrame(event: ShownAuditEvent, origin: SyslogOrigin): Buffer {
  const message = syslogMessage(event, origin);
  return Buffer.concat([Buffer.from(`${message.length} `, 'ascii'), message]);
}

/** `<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID [audit@32473 ...] MSG`, in UTF-8. */
export function syslogMessage(event: ShownAuditEvent, origin: SyslogOrigin): Buffer {
  const severity = event.outcome === 'denied' ? SEVERITY_WARNING : SEVERITY_NOTICE;
  const header = [
    `<${FACILITY_LOG_AUDIT * 8 + severity}>1`,
    event.occurred_at,
    origin.hostname,
    SYSLOG_APP_NAME,
    origin.procId,
    printableAscii(event.action, 32) ?? NILVALUE,
  ].join(' ');
  return Buffer.from(`${header} ${structuredData(event)} ${humanLine(event)}`, 'utf8');
}

function structuredData(event: ShownAuditEvent): string {
  const params = SD_FIELDS.filter((field) => event[field] !== null).map((field) => ` ${field}="${escapeParamValue(String(event[field]))}"`);
  return `[${AUDIT_SD_ID}${params.join('')}]`;
}

/** RFC 5424 6.3.3: '"', '\' and ']' are escaped with a backslash; every other character stands as it is. */
function escapeParamValue(value: string): string {
  return value.replace(/["\\\]]/g, '\\$&');
}

/**
 * e.g. "asset.decommission denied CLEARANCE_INSUFFICIENT by officer-7 on asset TIE-0001". The structured
 * data carries the exact values; here control characters become U+FFFD so the line stays one line. With
 * any character beyond ASCII, MSG starts with the BOM, which says it is UTF-8 (RFC 5424 6.4).
 */
function humanLine(event: ShownAuditEvent): string {
  const words = [event.action, event.outcome];
  if (event.reason !== null) {
    words.push(event.reason);
  }
  words.push(event.actor === null ? 'by an unauthenticated caller' : `by ${event.actor}`);
  if (event.asset_id !== null) {
    words.push(`on asset ${event.asset_id}`);
  }
  // eslint-disable-next-line no-control-regex -- control characters are what it replaces
  const line = words.join(' ').replace(/[\u0000-\u001f\u007f]/g, '\uFFFD');
  return /^[\u0020-\u007e]*$/.test(line) ? line : UTF8_BOM + line;
}

/** The value when it is 1 to `max` characters from '!' to '~', as the header's fields must be; else undefined. */
function printableAscii(value: string, max: number): string | undefined {
  return value.length <= max && /^[!-~]+$/.test(value) ? value : undefined;
}
