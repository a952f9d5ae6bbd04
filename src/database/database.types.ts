import type { ColumnType, Insertable, Selectable } from 'kysely';

export const ASSET_STATUSES = ['active', 'decommissioned'] as const;
export type AssetStatus = (typeof ASSET_STATUSES)[number];

export const SECTORS = ['Outer Rim', 'Mid Rim', 'Inner Rim', 'Core Worlds'] as const;
export type Sector = (typeof SECTORS)[number];

export interface AssetsTable {
  asset_id: string;
  asset_type: string;
  former_pilot: string;
  /** Defaults to `active` on insert. */
  status: ColumnType<AssetStatus, AssetStatus | undefined, AssetStatus>;
  decommission_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** ISO 8601 UTC, e.g. 2026-11-21T10:00:00.000Z */
  decommissioned_at: ColumnType<string | null, string | null | undefined, string | null>;
  authorized_by: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1 when an import wrote the row as decommissioned (it has no decommission event), else 0 (the default). */
  imported_decommissioned: ColumnType<number, number | undefined, number>;
}

export interface VesselsTable {
  id: string;
  name: string;
  class: string;
  length: string;
  crew: number;
  commander: string;
  sector: Sector;
  status: string;
}

export type AuditOutcome = 'allowed' | 'denied';

/** What a decision records, in the order the chain hashes it: the same in a waiting event and in the chain. */
export interface AuditDecisionFields {
  action: string;
  outcome: AuditOutcome;
  reason: string | null;
  actor: string | null;
  actor_clearance: number | null;
  asset_id: string | null;
  request_id: string;
  ip: string | null;
  method: string;
  path: string;
  /** An allowed decommission's `{"reason", "authorized_by"}` as JSON text, in that key order; null in other events. */
  details: string | null;
}

/** Events form a hash chain in `id` order: see src/audit/audit-chain.ts. */
export interface AuditEventsTable extends AuditDecisionFields {
  /** The event's position in the chain, handed out by the chain head. */
  id: number;
  occurred_at: string;
  /** `hash` of the event before it in the chain; GENESIS_HASH for the first. */
  prev_hash: string;
  /** SHA-256 (hex) of the event's fields and `prev_hash`. */
  hash: string;
  /** The event's RFC 9162 leaf hash in the audit tree (base64): see src/audit/audit-chain.ts. */
  leaf_hash: string;
  /** The event's zero-based position in the tree: its id less any gaps left before the chain existed. */
  leaf_index: number;
}

/**
 * An event recorded with its decision but not yet in the chain: the sequencer moves it into
 * `audit_events`, giving it its position, time and hash, and deletes it here in the same transaction.
 */
export interface AuditPendingTable extends AuditDecisionFields {
  /** Arrival order, which the sequencer keeps; a bigint on PostgreSQL, which pg returns as a string. */
  pending_id: ColumnType<number | string, never, never>;
  /** When the decision was taken (ISO 8601 UTC); the event's time is this, or its predecessor's if later. */
  recorded_at: string;
}

/** One row (`id` = 1) that says where the chain ends; only the sequencer moves it, under its row lock. */
export interface AuditChainHeadTable {
  id: number;
  event_count: number;
  /** 0 while the chain is empty. */
  last_event_id: number;
  last_hash: string;
  last_occurred_at: string | null;
  /** The audit tree's right edge: its complete subtrees' hashes, largest first, joined by commas (src/audit/merkle.ts). */
  frontier: string;
}

/** The audit tree's complete subtrees of 2^level leaves (level >= 1; leaves are audit_events.leaf_hash), for proofs. */
export interface AuditTreeNodesTable {
  level: number;
  /** The subtree covers leaves node_index * 2^level up to the next. */
  node_index: number;
  hash: string;
}

/** One row (`id` = 1): the latest signed checkpoint, which every instance serves. */
export interface AuditCheckpointTable {
  id: number;
  tree_size: number;
  /** The C2SP verifier key of the key that signed it. */
  verifier_key: string;
  note: string;
}

/** A checkpoint sent to the witnesses, by its tree size: the note as the log signed it. */
export interface AuditWitnessedCheckpointsTable {
  tree_size: number;
  note: string;
}

/** A witness's latest cosignature of a witnessed checkpoint: its signature line and its time in POSIX seconds. */
export interface AuditCosignaturesTable {
  tree_size: number;
  /** The witness's verifier key (type 0x04), as AUDIT_WITNESSES names it. */
  witness_key: string;
  signature: string;
  /** A bigint: pg returns it as a string. */
  cosigned_at: ColumnType<string | number, number, number>;
}

/** The `vessel_counts` key whose row counts every vessel; migration 003 wrote it, so it never changes. */
export const ALL_SECTORS = '*';

/** Kept exact by triggers on `vessels`: one row per sector that has held a vessel, and ALL_SECTORS. */
export interface VesselCountsTable {
  sector: string;
  vessel_count: number;
}

/** One row (`id` = 1) whose `version` every committed write to `vessels` raises, on every instance at once. */
export interface VesselDataVersionTable {
  id: number;
  /** A bigint: pg returns it as a string. */
  version: ColumnType<string | number, number, never>;
}

export const DECOMMISSION_REQUEST_STATES = ['pending', 'approved', 'rejected', 'withdrawn', 'expired'] as const;
export type DecommissionRequestState = (typeof DECOMMISSION_REQUEST_STATES)[number];
/** What a request's approval does to its asset. */
export const DECOMMISSION_REQUEST_KINDS = ['decommission', 'recommission'] as const;
export type DecommissionRequestKind = (typeof DECOMMISSION_REQUEST_KINDS)[number];

/** A decommission or recommission waiting for, or past, the second officer's decision (DECOMMISSION_APPROVAL=required). */
export interface DecommissionRequestsTable {
  /** Orders the listing, newest last; never shown (request_id is the request's public id). */
  id: ColumnType<number, never, never>;
  /** A UUID. */
  request_id: string;
  /** Its first asset (for a request opened by DELETE, its one asset): what the API shows as asset_id. */
  asset_id: string;
  /** 'decommission' unless written (the column's default): the requests before recommissions took two officers. */
  kind: ColumnType<DecommissionRequestKind, DecommissionRequestKind | undefined, never>;
  state: DecommissionRequestState;
  /** The `sub` of the officer who asked. */
  requested_by: string;
  /** The `sub` of the officer who may approve or reject it. */
  authorized_by: string;
  reason: string;
  /** A batch request's decommission: the id its approval's answer and events carry; null for a request opened by DELETE or a recommission. */
  batch_id: ColumnType<string | null, string | null | undefined, never>;
  /** ISO 8601 UTC, as every instant here. */
  created_at: string;
  expires_at: string;
  /** When it was approved, rejected or withdrawn, or when it expired; null while pending. */
  decided_at: string | null;
  /** Who approved, rejected or withdrew it; null while pending and once expired. */
  decided_by: string | null;
}

/**
 * The assets a decommission request holds, each at its position in the order the request gave them
 * (migration 015). `pending` is 1 while the request is pending: a unique index on asset_id over those
 * rows lets an asset be in one pending request at most.
 */
export interface DecommissionRequestAssetsTable {
  request_id: string;
  asset_id: string;
  position: number;
  pending: 0 | 1;
}

/** The one row of the database's decommission approval policy. */
export interface DecommissionPolicyTable {
  id: number;
  policy: 'none' | 'required';
  /** ISO 8601 UTC, the database's time of the last change. */
  since: string;
}

export interface DB {
  assets: AssetsTable;
  vessels: VesselsTable;
  vessel_counts: VesselCountsTable;
  vessel_data_version: VesselDataVersionTable;
  audit_events: AuditEventsTable;
  audit_chain_head: AuditChainHeadTable;
  audit_pending: AuditPendingTable;
  audit_tree_nodes: AuditTreeNodesTable;
  audit_checkpoint: AuditCheckpointTable;
  audit_witnessed_checkpoints: AuditWitnessedCheckpointsTable;
  audit_cosignatures: AuditCosignaturesTable;
  decommission_requests: DecommissionRequestsTable;
  decommission_request_assets: DecommissionRequestAssetsTable;
  decommission_policy: DecommissionPolicyTable;
  delivery_feeds: DeliveryFeedsTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  delivery_attempts: DeliveryAttemptsTable;
  idempotency_keys: IdempotencyKeysTable;
}

export const DELIVERY_FEED_KINDS = ['webhook', 'syslog'] as const;
export const DELIVERY_FEED_STATES = ['active', 'failing'] as const;

/** A feed that pushes the trail out (migration 012): a webhook subscription, or the syslog feed. */
export interface DeliveryFeedsTable {
  /** Orders the listing of subscriptions and is its keyset cursor; never shown. */
  id: ColumnType<number, never, never>;
  /** A webhook's public id (a UUID), or 'syslog'. */
  feed_id: string;
  kind: (typeof DELIVERY_FEED_KINDS)[number];
  /** failing: it stopped after WEBHOOK_MAX_ATTEMPTS failed attempts at one event, until resumed. */
  state: (typeof DELIVERY_FEED_STATES)[number];
  /** The id of the last event the feed has passed: delivered, or not matched by its filter. */
  cursor: number;
  /** Failed attempts at the event after the cursor. */
  attempts: ColumnType<number, number | undefined, number>;
  /** ISO 8601 UTC, as every instant here: when the next attempt may be made; null for at once. */
  next_attempt_at: string | null;
  last_error: string | null;
  /** The instance that delivers the feed until lease_expires_at; null when none does. */
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

/** What a webhook feed adds: where it goes, what it takes, and its secrets, encrypted. */
export interface WebhookSubscriptionsTable {
  feed_id: string;
  url: string;
  description: string | null;
  /** JSON: {actions?, outcomes?, asset_id?}. */
  filter: string;
  /** Encrypted with the key of WEBHOOK_SECRET_KEY_FILE; never stored or shown in the clear. */
  secret: string;
  /** The secret a rotation replaced, which still signs deliveries until previous_secret_until. */
  previous_secret: string | null;
  previous_secret_until: string | null;
  /** The `sub` of the officer who created it. */
  created_by: string;
}

/** One attempt to deliver one event of a feed. */
export interface DeliveryAttemptsTable {
  id: ColumnType<number, never, never>;
  feed_id: string;
  event_id: number;
  attempt: number;
  /** The receiver's HTTP status; null when it gave none (timeout, refused connection, forbidden address). */
  status: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: string;
}

export type DeliveryFeedRow = Selectable<DeliveryFeedsTable>;
export type WebhookSubscriptionRow = Selectable<WebhookSubscriptionsTable>;
export type DeliveryAttemptRow = Selectable<DeliveryAttemptsTable>;

/** An asset as the API and the exports show it: without the import's mark, which only audit:verify reads. */
export type AssetRow = Omit<Selectable<AssetsTable>, 'imported_decommissioned'>;
export type NewAsset = Insertable<AssetsTable>;
export type VesselRow = Selectable<VesselsTable>;
export type AuditEventRow = Selectable<AuditEventsTable>;
export type AuditChainHead = Selectable<AuditChainHeadTable>;
export type AuditPendingRow = Selectable<AuditPendingTable>;
export type DecommissionRequestRow = Selectable<DecommissionRequestsTable>;

/** A decision's answer kept for a retry with the same Idempotency-Key (migrations 013 and 016), one row per caller and key, written with the answer. */
export interface IdempotencyKeysTable {
  /** The token's subject: a key belongs to its caller. */
  caller: string;
  idempotency_key: string;
  method: string;
  path: string;
  /** SHA-256 of the request's canonical JSON body, hex. */
  fingerprint: string;
  /** When the request was decided, ISO 8601 UTC. */
  claimed_at: string;
  expires_at: string;
  status: number;
  /** The kept headers (Location, ETag) as a JSON object. */
  headers: string;
  /** The answer's body, JSON. */
  body: string;
}
