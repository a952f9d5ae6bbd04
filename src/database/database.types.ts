import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

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

export interface AuditEventsTable {
  id: Generated<number>;
  occurred_at: string;
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
}

export interface DB {
  assets: AssetsTable;
  vessels: VesselsTable;
  audit_events: AuditEventsTable;
}

export type AssetRow = Selectable<AssetsTable>;
export type NewAsset = Insertable<AssetsTable>;
export type VesselRow = Selectable<VesselsTable>;
export type AuditEventRow = Selectable<AuditEventsTable>;
export type NewAuditEvent = Insertable<AuditEventsTable>;
