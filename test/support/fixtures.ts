import { type AssetRow, SECTORS, type VesselRow } from '../../src/database';

/** Vessels per sector in FIXTURE_RECORDS: Outer Rim has more than one default page. */
export const VESSELS_PER_SECTOR = { 'Outer Rim': 13, 'Mid Rim': 4, 'Inner Rim': 2, 'Core Worlds': 1 } as const;
export const VESSEL_COUNT = Object.values(VESSELS_PER_SECTOR).reduce((sum, count) => sum + count, 0);

/** A vessel record as the import takes it and the listing returns it; `fields` sets what a test is about. */
export function vesselRecord(id: string, fields: Partial<VesselRow> = {}): VesselRow {
  return {
    id,
    name: 'Avenger',
    class: 'Imperial II-class',
    length: '1600 meters',
    crew: 37000,
    commander: 'Captain Needa',
    sector: 'Outer Rim',
    status: 'operational',
    ...fields,
  };
}

const vessels = SECTORS.flatMap((sector, sectorIndex) =>
  Array.from({ length: VESSELS_PER_SECTOR[sector] }, (_, index) =>
    // Ids interleave sectors so that ordering by id is visible in a filtered list.
    vesselRecord(`SD-${String(index * 10 + sectorIndex).padStart(3, '0')}`, {
      name: `${sector} Vessel ${index + 1}`,
      crew: 37000 + index,
      commander: `Captain ${sector.split(' ')[0]} ${index + 1}`,
      sector,
    }),
  ),
);

/** An asset that arrives already decommissioned, exactly as GET /v1/assets/OLD-0001 shows it. */
export const DECOMMISSIONED_ASSET: AssetRow = {
  asset_id: 'OLD-0001',
  asset_type: 'vehicle',
  former_pilot: 'TK-099',
  status: 'decommissioned',
  decommission_reason: 'Lost at Hoth',
  decommissioned_at: '2026-01-02T03:04:05.000Z',
  authorized_by: 'General Veers',
};

export const FIXTURE_RECORDS = {
  vessels,
  assets: [
    { asset_id: 'TIE-0001', asset_type: 'vehicle', former_pilot: 'TK-421' },
    { asset_id: 'TIE-0002', asset_type: 'vehicle', former_pilot: 'TN-3465' },
    { asset_id: 'EQP-0001', asset_type: 'equipment', former_pilot: 'DS-61-2' },
    { asset_id: 'FAC-0001', asset_type: 'facility', former_pilot: 'LX-4431' },
    DECOMMISSIONED_ASSET,
  ],
};

export const DECOMMISSION_BODY = { reason: 'Damaged beyond repair', authorized_by: 'Grand Moff Tarkin' };
export const RECOMMISSION_BODY = { reason: 'Decommissioned by mistake', authorized_by: 'Grand Moff Tarkin' };

/** The asset fields a successful decommission answers with; the asset routes add `status`. */
export const DECOMMISSION_RESULT_KEYS = [
  'asset_id',
  'asset_type',
  'authorized_by',
  'decommission_reason',
  'decommissioned_at',
  'former_pilot',
];
