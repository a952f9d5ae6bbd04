import type { AuditOutcome } from '../src/database';
import { vesselId } from './fleet-data';

/** The fleet of the side-by-side suites; the scaling suite measures a larger one against it. */
export const BASE_VESSELS = 10_000;
/**
 * Well above what the service commits at synchronous=FULL, so no run runs out of fresh assets: it
 * has averaged 4,317 a second over a run (Node 24, 2026-11-23), which ran out of 4,000 a second's.
 */
export const DECOMMISSIONS_PER_SECOND_BOUND = 10_000;
/** The assets of one batch decommission (the most one takes), and a bound on the assets a second of them retires. */
export const BATCH_SIZE = 100;
export const BATCH_ASSETS_PER_SECOND_BOUND = 100_000;
const DEEP_OFFSET = 5_000;
const FLEET = '/v1/fleet/star-destroyers';

type Requests =
  | { method: 'GET'; paths: (vessels: number) => string[] }
  /** `keyed`: each with an Idempotency-Key of its own, as a client that may retry sends it. */
  | { method: 'DELETE'; clearance: number; keyed?: boolean }
  /** POST /v1/assets/decommissions of `batch` fresh assets each. */
  | { method: 'POST'; batch: number };

export interface Workload {
  name: string;
  requests: Requests;
  /** The status every answer should have. */
  status: number;
  /** The audit event every answer must leave on the record. */
  recorded?: AuditOutcome;
  /** The route needs no token. */
  public?: boolean;
  /** Work the service may not do yet: a side whose probe answer fails this is shown as n/a rather than failing the run. */
  supportedBy?: (answer: unknown) => boolean;
  /** A target reads A against B's figures on this other workload of the suite: the cursor against the bare server's OFFSET page. */
  alsoAgainst?: Workload;
  /** The audit events (and assets) one answer stands for: a batch's assets; 1 by default. */
  perAnswer?: number;
}

const get = (paths: (vessels: number) => string[]): Requests => ({ method: 'GET', paths });
const tenths = Array.from({ length: 10 }, (_, index) => index);
const hasNextCursor = (answer: unknown) => (answer as { data?: { next_cursor?: unknown } }).data?.next_cursor !== undefined;

const DEEP_PAGE: Workload = {
  name: `fleet, page at offset ${DEEP_OFFSET.toLocaleString('en')} (page)`,
  requests: get(() => [`${FLEET}?limit=100&page=${DEEP_OFFSET / 100 + 1}`]),
  status: 200,
};

const DECOMMISSION = { name: 'decommission, a fresh asset each', requests: { method: 'DELETE', clearance: 7 }, status: 200, recorded: 'allowed' } satisfies Workload;

export const WORKLOADS = {
  firstPage: { name: 'fleet, first page', requests: get(() => [FLEET]), status: 200 },
  sectorPage: { name: 'fleet, first page of a sector', requests: get(() => [`${FLEET}?sector=Outer%20Rim`]), status: 200 },
  hundredPerPage: { name: 'fleet, 100 per page', requests: get(() => [`${FLEET}?limit=100`]), status: 200 },
  deepPage: DEEP_PAGE,
  deepCursor: {
    name: `fleet, page at offset ${DEEP_OFFSET.toLocaleString('en')} (cursor)`,
    requests: get(() => [`${FLEET}?limit=100&after=${vesselId(DEEP_OFFSET - 1)}`]),
    status: 200,
    supportedBy: hasNextCursor,
    alsoAgainst: DEEP_PAGE,
  },
  decommission: DECOMMISSION,
  denied: { name: 'decommission denied, clearance 6', requests: { method: 'DELETE', clearance: 6 }, status: 403, recorded: 'denied' },
  idempotentDecommission: {
    name: 'decommission with an Idempotency-Key, a fresh asset and key each',
    requests: { method: 'DELETE', clearance: 7, keyed: true },
    status: 200,
    recorded: 'allowed',
    alsoAgainst: DECOMMISSION,
  },
  batchDecommission: {
    name: `batch decommission, ${BATCH_SIZE} fresh assets each`,
    requests: { method: 'POST', batch: BATCH_SIZE },
    status: 200,
    recorded: 'allowed',
    perAnswer: BATCH_SIZE,
    supportedBy: (answer: unknown) => typeof (answer as { data?: { batch_id?: unknown } }).data?.batch_id === 'string',
    alsoAgainst: DECOMMISSION,
  },
  health: { name: 'liveness', requests: get(() => ['/health/live']), status: 200, public: true },
  firstTenPages: {
    name: 'fleet, pages 1 to 10 in turn (100 per page)',
    requests: get(() => tenths.map((page) => `${FLEET}?limit=100&page=${page + 1}`)),
    status: 200,
  },
  cursorPages: {
    name: 'fleet, cursor pages at each tenth of the fleet in turn',
    requests: get((vessels) => tenths.map((tenth) => `${FLEET}?limit=100&after=${vesselId(Math.floor((tenth * vessels) / 10))}`)),
    status: 200,
    supportedBy: hasNextCursor,
  },
} satisfies Record<string, Workload>;

export const LISTINGS: Workload[] = [WORKLOADS.firstPage, WORKLOADS.sectorPage, WORKLOADS.hundredPerPage, WORKLOADS.deepPage, WORKLOADS.deepCursor];
export const WRITES: Workload[] = [WORKLOADS.decommission, WORKLOADS.denied];
/** Issue 35: what a retry-safe decommission costs, and what a batch retires, each read against the plain DELETE. */
export const RETRIES: Workload[] = [WORKLOADS.idempotentDecommission, WORKLOADS.batchDecommission];
