import '../runtime';
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import {
  APPROVAL_PROBLEMS,
  type AssetDisagreement,
  AuditChainVerifier,
  CHAIN_PROBLEMS,
  type Checkpoint,
  countCosignatures,
  NO_DECOMMISSION_EVENT,
  NoteError,
  type NoteVerifier,
  openCheckpoint,
  parseCosignerKey,
  parseVerifierKey,
  splitNote,
  TrailRepository,
  verifierKeyOf,
} from '../audit';
import { loadCheckpointKeyConfig, loadDatabaseConfig } from '../config';
import { assertMigrated, createDatabase, describeLocation } from '../database';
import { AUDIT_VERIFY_USAGE, parseVerifyArguments, type VerifyArguments } from './audit-arguments';
import { assertDatabaseExists } from './command-support';
import { runCommand } from './run-command';

/** The checkpoint in the file, its signature checked with the key given, or else with the service's own. */
function readCheckpoint({ checkpoint: file, verifierKey, witnessKeys, quorum }: VerifyArguments & { checkpoint: string }): Checkpoint {
  const note = readFileSync(file, 'utf8');
  let key = verifierKey;
  if (key === undefined) {
    const { signingKey, signingKeyWarning, logOrigin } = loadCheckpointKeyConfig();
    if (signingKeyWarning) {
      console.error(signingKeyWarning);
    }
    if (!signingKey) {
      throw new Error('No key to check the checkpoint with: give --verifier-key, or set AUDIT_SIGNING_KEY_FILE');
    }
    key = verifierKeyOf(logOrigin, signingKey);
  }
  try {
    const checkpoint = openCheckpoint(note, parseVerifierKey(key));
    assertCosigned(note, witnessKeys, quorum);
    return checkpoint;
  } catch (error) {
    throw new Error(`Checkpoint ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/** Refuses a checkpoint with fewer than `quorum` valid cosignatures by the witnesses of `keys`, naming those missing or invalid. */
function assertCosigned(note: string, keys: string[], quorum: number): void {
  if (keys.length === 0) {
    return;
  }
  const { body, signatures } = splitNote(note);
  const { valid, invalid, missing } = countCosignatures(body, signatures, keys.map(parseCosignerKey));
  if (valid.length < quorum) {
    const names = (witnesses: NoteVerifier[]) => witnesses.map(({ name }) => name).join(', ');
    const problems = [invalid.length > 0 ? `invalid from ${names(invalid)}` : '', missing.length > 0 ? `missing from ${names(missing)}` : ''].filter(Boolean);
    throw new NoteError(`it carries ${valid.length} valid witness cosignatures of the ${quorum} required: ${problems.join('; ')}`);
  }
}

/** A line for each thing at fault with one asset's row or its decommission's trail. */
function describeDisagreement({ asset_id, event_id, fields }: AssetDisagreement): string[] {
  const isApprovalProblem = (field: string): field is keyof typeof APPROVAL_PROBLEMS => field in APPROVAL_PROBLEMS;
  const rowFields = fields.filter((field) => !isApprovalProblem(field) && field !== NO_DECOMMISSION_EVENT);
  return [
    ...(fields.includes(NO_DECOMMISSION_EVENT) ? [`Asset ${asset_id} is decommissioned in its row, but the trail holds no decommission event for it: its row was changed`] : []),
    ...(rowFields.length > 0 ? [`Asset ${asset_id} disagrees with its decommission event ${event_id} on ${rowFields.join(', ')}: its row was changed`] : []),
    ...fields.filter(isApprovalProblem).map((problem) =>
      problem === 'approval'
        ? `Asset ${asset_id} was decommissioned by event ${event_id} while DECOMMISSION_APPROVAL=required was in force, but ${APPROVAL_PROBLEMS[problem]}`
        : `Asset ${asset_id} was decommissioned by event ${event_id} through a request, but ${APPROVAL_PROBLEMS[problem]}`,
    ),
  ];
}

/**
 * Exit code 0 and one line when the audit chain, its tree and the decommissioned assets agree (and the
 * checkpoint given, if any, is the root of the first events); 1 and what is at fault otherwise.
 */
runCommand({
  script: 'audit:verify',
  usage: AUDIT_VERIFY_USAGE,
  parse: parseVerifyArguments,
  async run(args) {
    const checkpoint = args.checkpoint === undefined ? undefined : readCheckpoint({ ...args, checkpoint: args.checkpoint });
    const config = loadDatabaseConfig();
    assertDatabaseExists(config.database);
    const db = createDatabase(config.database);
    try {
      await assertMigrated(db);
      const verifier = new AuditChainVerifier(new TrailRepository(db));
      const result = await verifier.verify();
      const where = describeLocation(config.database);
      if (result.problem) {
        console.error(
          `Audit chain broken at event ${result.first_broken_event_id} (${result.problem}): ${CHAIN_PROBLEMS[result.problem]}. ` +
            `The head records ${result.length} events, head ${result.head_hash} (${where})`,
        );
        process.exitCode = 1;
        return;
      }
      if (result.disagreeing_assets) {
        for (const disagreement of result.disagreeing_assets) {
          describeDisagreement(disagreement).forEach((line) => console.error(`${line} (${where})`));
        }
        process.exitCode = 1;
        return;
      }
      if (checkpoint) {
        const root = await verifier.rootOfFirst(checkpoint.size);
        if (root === undefined) {
          console.error(
            `The database holds ${result.length} events, fewer than the ${checkpoint.size} of the checkpoint: ` +
              `it was rolled back, e.g. restored from an older backup, or events were deleted (${where})`,
          );
          process.exitCode = 1;
          return;
        }
        if (root !== checkpoint.root) {
          console.error(
            `The database's first ${checkpoint.size} events do not have the checkpoint's root: ` +
              `the trail was rewritten or rebuilt since the checkpoint was signed (${where})`,
          );
          process.exitCode = 1;
          return;
        }
      }
      const matched = checkpoint ? `; its first ${checkpoint.size} events have the checkpoint's root` : '';
      console.log(`Audit chain intact: ${result.length} events, head ${result.head_hash}${matched} (${where})`);
    } finally {
      await db.destroy();
    }
  },
});
