import { FORMATS, type FileLayout, formatOfFileName, isRecordKind, RECORD_KINDS, type RecordFormat, TIMESTAMP_WITH_OFFSET } from '../import';
import type { DecommissionPolicyName } from '../assets';
import { DECOMMISSION_APPROVAL_POLICIES } from '../config';
import { fail, type Options, parseOptions } from './command-options';

const LAYOUT_OPTIONS = `  --format <json|ndjson|csv>   the file's format; by default its extension says (.json, .ndjson or .jsonl, .csv)
  --kind <asset|vessel>        CSV only: the kind of record the file holds, one kind a file
  -h, --help                   this text`;

export const IMPORT_USAGE = `usage: npm run db:import -- <file> [--format json|ndjson|csv] [--kind asset|vessel]

Loads records into the configured database (DATABASE_URL): all or nothing, upserting by id.

${LAYOUT_OPTIONS}`;

export const EXPORT_USAGE = `usage: npm run db:export -- <file> [--format json|ndjson|csv] [--kind asset|vessel]

Writes the configured database's records (not the audit trail) in a format db:import reads.

${LAYOUT_OPTIONS}`;

export const AUDIT_EXPORT_USAGE = `usage: npm run audit:export -- [--since <time> | --after-id <id>] [--output <file>]

Writes the audit trail as NDJSON, one event a line in chain (id) order, each as GET /v1/audit/events shows it.

  --since <time>      from the first event at or after this ISO 8601 time (with Z or an offset) on
  --after-id <id>     from the event after this id on (the last id a previous export wrote)
  --output <file>     write to this file instead of stdout
  -h, --help          this text`;

export const MIGRATE_USAGE = `usage: npm run db:migrate

Applies the migrations the configured database (DATABASE_URL) lacks, for deployments that start their
instances with MIGRATE_ON_START=false. Reads only the DATABASE_* variables.

  -h, --help   this text`;

/** Commands that take nothing but --help. */
export const parseNoArguments = (args: string[]) => parseOptions(args, {});

const LAYOUT_OPTION_TYPES: Options = { format: { type: 'string' }, kind: { type: 'string' } };

export interface FileArguments {
  file: string;
  layout: FileLayout;
}

/** `<file> [--format] [--kind]` of db:import and db:export. */
export function parseFileArguments(args: string[]): FileArguments | { help: true } {
  const parsed = parseOptions(args, LAYOUT_OPTION_TYPES, 1);
  if ('help' in parsed) {
    return parsed;
  }
  const { positionals, text } = parsed;
  const [file] = positionals;
  if (file === undefined) {
    fail('A file is required');
  }
  const formatOption = text('format');
  if (formatOption !== undefined && !FORMATS.includes(formatOption as RecordFormat)) {
    fail(`--format must be ${FORMATS.join(', ')}, not "${formatOption}"`);
  }
  const format = (formatOption as RecordFormat | undefined) ?? formatOfFileName(file);
  if (format === undefined) {
    fail(`The extension of ${file} names no format: add --format ${FORMATS.join('|')}`);
  }
  const kind = text('kind');
  if (format !== 'csv') {
    if (kind !== undefined) {
      fail(`--kind is for CSV files: a ${format} file holds every kind of record`);
    }
    return { file, layout: { format } };
  }
  if (kind === undefined) {
    fail(`A CSV file holds one kind of record: add --kind ${RECORD_KINDS.join(' or ')}`);
  }
  if (!isRecordKind(kind)) {
    fail(`--kind must be ${RECORD_KINDS.join(' or ')}, not "${kind}"`);
  }
  return { file, layout: { format, kind } };
}

export interface AuditExportArguments {
  /** Events with a greater id are written. */
  from: { afterId: number } | { since: string };
  output?: string;
}

export function parseAuditExportArguments(args: string[]): AuditExportArguments | { help: true } {
  const parsed = parseOptions(args, {
    since: { type: 'string' },
    'after-id': { type: 'string' },
    output: { type: 'string' },
  });
  if ('help' in parsed) {
    return parsed;
  }
  const { text } = parsed;
  const since = text('since');
  const afterId = text('after-id');
  const output = text('output');
  if (since !== undefined && afterId !== undefined) {
    fail('Give --since or --after-id, not both');
  }
  if (afterId !== undefined) {
    if (!/^(0|[1-9][0-9]{0,14})$/.test(afterId)) {
      fail(`--after-id must be a whole number, 0 or more, not "${afterId}"`);
    }
    return { from: { afterId: Number(afterId) }, output };
  }
  if (since !== undefined) {
    const time = new Date(since);
    if (!TIMESTAMP_WITH_OFFSET.test(since) || Number.isNaN(time.getTime())) {
      fail(`--since must be an ISO 8601 time with Z or an offset, e.g. 2026-11-22T06:00:00Z, not "${since}"`);
    }
    return { from: { since: time.toISOString() }, output };
  }
  return { from: { afterId: 0 }, output };
}

export const DECOMMISSION_APPROVAL_USAGE = `usage: npm run db:decommission-approval -- [none|required]

Shows the decommission approval policy of the configured database (DATABASE_URL), or sets it. Every
instance on the database follows it from its next decision on; an instance whose DECOMMISSION_APPROVAL
is set otherwise refuses to start, so set that variable to the new policy or unset it before restarting.

  none        DELETE /v1/assets/{asset_id} decommissions at once
  required    DELETE opens a request that another officer approves
  -h, --help  this text`;

/** `[none|required]` of db:decommission-approval: no policy shows the one in force. */
export function parsePolicyArguments(args: string[]): { policy?: DecommissionPolicyName } | { help: true } {
  const parsed = parseOptions(args, {}, 1);
  if ('help' in parsed) {
    return parsed;
  }
  const [policy] = parsed.positionals;
  if (policy !== undefined && !DECOMMISSION_APPROVAL_POLICIES.includes(policy as DecommissionPolicyName)) {
    fail(`The policy must be ${DECOMMISSION_APPROVAL_POLICIES.join(' or ')}, not "${policy}"`);
  }
  return { policy: policy as DecommissionPolicyName | undefined };
}
