import { SECTORS } from '../../src/database';

/** Vessels per sector in FIXTURE_RECORDS: Outer Rim has more than one default page. */
export const VESSELS_PER_SECTOR = { 'Outer Rim': 13, 'Mid Rim': 4, 'Inner Rim': 2, 'Core Worlds': 1 } as const;
export const VESSEL_COUNT = Object.values(VESSELS_PER_SECTOR).reduce((sum, count) => sum + count, 0);

const vessels = SECTORS.flatMap((sector, sectorIndex) =>
  Array.from({ length: VESSELS_PER_SECTOR[sector] }, (_, index) => ({
    // Ids interleave sectors so that ordering by id is visible in a filtered list.
    id: `SD-${String(index * 10 + sectorIndex).padStart(3, '0')}`,
    name: `${sector} Vessel ${index + 1}`,
    class: 'Imperial II-class',
    length: '1600 meters',
    crew: 37000 + index,
    commander: `Captain ${sector.split(' ')[0]} ${index + 1}`,
    sector,
    status: 'operational',
  })),
);

export const FIXTURE_RECORDS = {
  vessels,
  assets: [
    { asset_id: 'TIE-0001', asset_type: 'vehicle', former_pilot: 'TK-421' },
    { asset_id: 'TIE-0002', asset_type: 'vehicle', former_pilot: 'TN-3465' },
    { asset_id: 'EQP-0001', asset_type: 'equipment', former_pilot: 'DS-61-2' },
    { asset_id: 'FAC-0001', asset_type: 'facility', former_pilot: 'LX-4431' },
    {
      asset_id: 'OLD-0001',
      asset_type: 'vehicle',
      former_pilot: 'TK-099',
      status: 'decommissioned',
      decommission_reason: 'Lost at Hoth',
      decommissioned_at: '2026-01-02T03:04:05.000Z',
      authorized_by: 'General Veers',
    },
  ],
};

export const DECOMMISSION_BODY = { reason: 'Damaged beyond repair', authorized_by: 'Grand Moff Tarkin' };
