import { Injectable } from '@nestjs/common';
import { type ExpressionBuilder, Kysely } from 'kysely';
import { AUDIT_ACTIONS } from '../audit.vocabulary';
import { type AuditChainHead, type AuditEventRow, type DB, refreshPlannerStatistics } from '../../database';
import { LEAF_FIELDS, STORED_EVENT_COLUMNS } from './audit-chain';
import type { TreeNode } from './merkle';

/** The latest signed checkpoint, as stored. */
export interface StoredCheckpoint {
  treeSize: number;
  verifierKey: string;
  note: string;
}

/** An asset with the latest allowed event that changed its status: a decommission or a recommission. */
export interface AssetStatusChange {
  asset_id: string;
  status: string;
  decommission_reason: string | null;
  authorized_by: string | null;
  decommissioned_at: string | null;
  event_id: number;
  event_action: string;
  event_occurred_at: string;
  event_details: string | null;
}

export const nodeKey = ({ level, index }: TreeNode) => `${level}:${index}`;

/**
 * The id of the asset's latest allowed event of `actions`, read through the asset index (asset_id, id), so
 * that a page of assets costs its own assets' events. The actions and the outcome are picked inside max(),
 * not by WHERE, so that the asset is the one condition an index can serve, with statistics or without:
 * with them in WHERE, SQLite without statistics read every event of the action once for each asset.
 */
function latestAllowedEventId(eb: ExpressionBuilder<DB, 'assets'>, actions: string[]) {
  return eb
    .selectFrom('audit_events as event')
    .select((inner) =>
      inner.fn
        .max(
          inner
            .case()
            .when(inner.and([inner('event.action', 'in', actions), inner('event.outcome', '=', 'allowed')]))
            .then(inner.ref('event.id'))
            .end(),
        )
        .as('id'),
    )
    .whereRef('event.asset_id', '=', 'assets.asset_id');
}

/** The reads of the chain and its tree that verification and proofs need, and the stored checkpoint. */
@Injectable()
export class TrailRepository {
  constructor(private readonly db: Kysely<DB>) {}

  findChainHead(): Promise<AuditChainHead | undefined> {
    return this.db.selectFrom('audit_chain_head').selectAll().where('id', '=', 1).executeTakeFirst();
  }

  /** Events in chain order after `afterId`, up to `throughId` when given. */
  findChainSegment(afterId: number, limit: number, throughId?: number): Promise<AuditEventRow[]> {
    let events = this.db.selectFrom('audit_events').select(STORED_EVENT_COLUMNS).where('id', '>', afterId);
    if (throughId !== undefined) {
      events = events.where('id', '<=', throughId);
    }
    return events.orderBy('id').limit(limit).execute();
  }

  /** The event's position in the tree, or undefined for an unknown id. */
  async findLeafIndex(id: number): Promise<number | undefined> {
    const row = await this.db.selectFrom('audit_events').select('leaf_index').where('id', '=', id).executeTakeFirst();
    return row?.leaf_index;
  }

  /** The leaf hashes of leaves [start, end), in order (the leaf_index index finds them). */
  async findLeafHashes(start: number, end: number): Promise<string[]> {
    const rows = await this.db.selectFrom('audit_events').select('leaf_hash').where('leaf_index', '>=', start).where('leaf_index', '<', end).orderBy('leaf_index').execute();
    return rows.map((row) => row.leaf_hash);
  }

  /** The leaves [start, end), in order: each event's fields that its leaf is made of. */
  findLeaves(start: number, end: number) {
    return this.db.selectFrom('audit_events').select(LEAF_FIELDS).where('leaf_index', '>=', start).where('leaf_index', '<', end).orderBy('leaf_index').execute();
  }

  /** The hashes of the stored subtrees at `level` (above 1) numbered [start, end), in order (the table's key finds them). */
  async findLevelHashes(level: number, start: number, end: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('audit_tree_nodes')
      .select('hash')
      .where('level', '=', level)
      .where('node_index', '>=', start)
      .where('node_index', '<', end)
      .orderBy('node_index')
      .execute();
    return rows.map((row) => row.hash);
  }

  /** The hashes of these complete subtrees: leaves from the events, the others from the stored nodes; two reads at most. */
  async findTreeNodes(nodes: TreeNode[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const leaves = nodes.filter((node) => node.level === 0).map((node) => node.index);
    const interior = nodes.filter((node) => node.level > 0);
    if (leaves.length > 0) {
      const rows = await this.db.selectFrom('audit_events').select(['leaf_index', 'leaf_hash']).where('leaf_index', 'in', leaves).execute();
      rows.forEach((row) => found.set(nodeKey({ level: 0, index: row.leaf_index }), row.leaf_hash));
    }
    if (interior.length > 0) {
      const rows = await this.db
        .selectFrom('audit_tree_nodes')
        .select(['level', 'node_index', 'hash'])
        .where((eb) => eb.or(interior.map(({ level, index }) => eb.and([eb('level', '=', level), eb('node_index', '=', index)]))))
        .execute();
      rows.forEach((row) => found.set(nodeKey({ level: row.level, index: Number(row.node_index) }), row.hash));
    }
    return found;
  }

  async findCheckpoint(): Promise<StoredCheckpoint | undefined> {
    const row = await this.db.selectFrom('audit_checkpoint').select(['tree_size', 'verifier_key', 'note']).where('id', '=', 1).executeTakeFirst();
    return row && { treeSize: Number(row.tree_size), verifierKey: row.verifier_key, note: row.note };
  }

  /**
   * Stores the checkpoint unless a larger tree's is stored, or this size's by the same key: instances
   * that sign at once write the same bytes, and a rotated key replaces the old one's at the same size.
   */
  async storeCheckpoint(checkpoint: StoredCheckpoint): Promise<void> {
    const row = { id: 1, tree_size: checkpoint.treeSize, verifier_key: checkpoint.verifierKey, note: checkpoint.note };
    await this.db
      .insertInto('audit_checkpoint')
      .values(row)
      .onConflict((conflict) =>
        conflict
          .column('id')
          .doUpdateSet({ tree_size: row.tree_size, verifier_key: row.verifier_key, note: row.note })
          .where((eb) =>
            eb.or([
              eb('audit_checkpoint.tree_size', '<', row.tree_size),
              eb.and([eb('audit_checkpoint.tree_size', '=', row.tree_size), eb('audit_checkpoint.verifier_key', '<>', row.verifier_key)]),
            ]),
          ),
      )
      .execute();
  }

  /** Fresh planner statistics for the reads that set assets beside their events (see refreshPlannerStatistics). */
  refreshStatistics(): Promise<void> {
    return refreshPlannerStatistics(this.db, ['assets', 'audit_events']);
  }

  /**
   * The allowed request and approval events of an asset's decommission requests, oldest first, read through
   * the asset index: the steps are picked by a CASE, which no index serves, as latestAllowedEventId picks them.
   */
  findRequestSteps(assetId: string) {
    return this.db
      .selectFrom('audit_events')
      .select(['action', 'actor', 'details'])
      .where('asset_id', '=', assetId)
      .where(
        (eb) =>
          eb
            .case()
            .when(eb.and([eb('action', 'in', [AUDIT_ACTIONS.requestDecommission, AUDIT_ACTIONS.approveDecommission]), eb('outcome', '=', 'allowed')]))
            .then(1)
            .else(0)
            .end(),
        '=',
        1,
      )
      .orderBy('id')
      .execute();
  }

  /** The database's decommission approval policy and the time it took effect (migration 010); undefined before any instance set it. */
  findDecommissionPolicy() {
    return this.db.selectFrom('decommission_policy').select(['policy', 'since']).where('id', '=', 1).executeTakeFirst();
  }

  /** Allowed decommission events dated at or after `since`, in chain order after `afterId` (the action index finds them). */
  findDecommissionsSince(since: string, afterId: number, limit: number) {
    return this.db
      .selectFrom('audit_events')
      .select(['id', 'asset_id', 'details'])
      .where('action', '=', AUDIT_ACTIONS.decommission)
      .where('id', '>', afterId)
      .where('occurred_at', '>=', since)
      .where('outcome', '=', 'allowed')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /**
   * Decommissioned assets that no allowed decommission event names, in asset order after `afterAssetId`,
   * less those an import wrote decommissioned (migration 011 marks them).
   */
  findDecommissionedWithoutEvent(afterAssetId: string, limit: number) {
    return this.db
      .selectFrom('assets')
      .select('asset_id')
      .where('status', '=', 'decommissioned')
      .where('imported_decommissioned', '=', 0)
      .where('asset_id', '>', afterAssetId)
      .where((eb) => eb(latestAllowedEventId(eb, [AUDIT_ACTIONS.decommission]), 'is', null))
      .orderBy('asset_id')
      .limit(limit)
      .execute();
  }

  /**
   * Every asset ever decommissioned, beside its latest allowed decommission or recommission event, in asset
   * order, after `afterAssetId`: grouping the events after the page instead cost every page the rest of the
   * trail (78 s over 305,000 decommissions on SQLite).
   */
  findLatestStatusChanges(afterAssetId: string, limit: number): Promise<AssetStatusChange[]> {
    return this.db
      .selectFrom('assets')
      .innerJoin('audit_events', (join) => join.on((eb) => eb('audit_events.id', '=', latestAllowedEventId(eb, [AUDIT_ACTIONS.decommission, AUDIT_ACTIONS.recommission]))))
      .select([
        'assets.asset_id',
        'assets.status',
        'assets.decommission_reason',
        'assets.authorized_by',
        'assets.decommissioned_at',
        'audit_events.id as event_id',
        'audit_events.action as event_action',
        'audit_events.occurred_at as event_occurred_at',
        'audit_events.details as event_details',
      ])
      .where('assets.asset_id', '>', afterAssetId)
      .orderBy('assets.asset_id')
      .limit(limit)
      .execute();
  }
}

