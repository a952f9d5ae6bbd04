import { FORMATS, type FileLayout, formatOfFileName, isRecordKind, RECORD_KINDS, type RecordFormat, TIMESTAMP_WITH_OFFSET } from '../import';
import type { DecommissionPolicyName } from '../assets';
import { DECOMMISSION_APPROVAL_POLICIES } from '../config';
import { fail, type Options, type ParsedOptions, parseOptions } from './command-options';

const LAYOUT_OPTIONS = `  --format <json|ndjson|csv>   the file's format; by default its extension says (.json, .ndjson or .jsonl, .csv)
  --kind <asset|vessel>        CSV only: the kind of record the file holds, one kind a file`;
const HELP_OPTION = '  -h, --help                   this text';

export const IMPORT_USAGE = `usage: npm run db:import -- <file> [--format json|ndjson|csv] [--kind asset|vessel]

Loads records into the configured database (DATABASE_URL): all or nothing, upserting by id.

${LAYOUT_OPTIONS}
${HELP_OPTION}`;

/** What db:export and audit:export do with the file they write. */
const OUTPUT_FILE = `The file appears once the export is complete, readable by its owner only; a failed or interrupted
export leaves what was there. A symbolic link at its path is refused, and an existing file unless --force.`;

export const EXPORT_USAGE = `usage: npm run db:export -- <file> [--format json|ndjson|csv] [--kind asset|vessel] [--force]

Writes the configured database's records (not the audit trail) in a format db:import reads.
${OUTPUT_FILE}

${LAYOUT_OPTIONS}
  --force                      replace the file if it exists
${HELP_OPTION}`;

export const AUDIT_EXPORT_USAGE = `usage: npm run audit:export -- [--since <time> | --after-id <id>] [--output <file> [--force]]

Writes the audit trail as NDJSON, one event a line in chain (id) order, each as GET /v1/audit/events shows it.
${OUTPUT_FILE}

  --since <time>      from the first event at or after this ISO 8601 time (with Z or an offset) on
  --after-id <id>     from the event after this id on (the last id a previous export wrote)
  --output <file>     write to this file instead of stdout
  --force             replace the --output file if it exists
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

/** `<file> [--format] [--kind]` of db:import. */
export function parseFileArguments(args: string[]): FileArguments | { help: true } {
  const parsed = parseOptions(args, LAYOUT_OPTION_TYPES, 1);
  return 'help' in parsed ? parsed : fileArguments(parsed);
}

export interface ExportArguments extends FileArguments {
  force: boolean;
}

/** `<file> [--format] [--kind] [--force]` of db:export. */
export function parseExportArguments(args: string[]): ExportArguments | { help: true } {
  const parsed = parseOptions(args, { ...LAYOUT_OPTION_TYPES, force: { type: 'boolean' } }, 1);
  return 'help' in parsed ? parsed : { ...fileArguments(parsed), force: parsed.flag('force') };
}

function fileArguments({ positionals, text }: ParsedOptions): FileArguments {
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
  /** The file to write, and whether it may replace one; stdout when absent. */
  output?: { file: string; force: boolean };
}

export function parseAuditExportArguments(args: string[]): AuditExportArguments | { help: true } {
  const parsed = parseOptions(args, {
    since: { type: 'string' },
    'after-id': { type: 'string' },
    output: { type: 'string' },
    force: { type: 'boolean' },
  });
  if ('help' in parsed) {
    return parsed;
  }
  const { text, flag } = parsed;
  const file = text('output');
  if (flag('force') && file === undefined) {
    fail('--force replaces the --output file: add --output <file>');
  }
  const output = file === undefined ? undefined : { file, force: flag('force') };
  return { from: exportStart(text('since'), text('after-id')), output };
}

function exportStart(since: string | undefined, afterId: string | undefined): AuditExportArguments['from'] {
  if (since !== undefined && afterId !== undefined) {
    fail('Give --since or --after-id, not both');
  }
  if (afterId !== undefined) {
    if (!/^(0|[1-9][0-9]{0,14})$/.test(afterId)) {
      fail(`--after-id must be a whole number, 0 or more, not "${afterId}"`);
    }
    return { afterId: Number(afterId) };
  }
  if (since !== undefined) {
    const time = new Date(since);
    if (!TIMESTAMP_WITH_OFFSET.test(since) || Number.isNaN(time.getTime())) {
      fail(`--since must be an ISO 8601 time with Z or an offset, e.g. 2026-11-22T06:00:00Z, not "${since}"`);
    }
    return { since: time.toISOString() };
  }
  return { afterId: 0 };
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
