import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Database, { type Statement } from 'better-sqlite3';
import { chainEvents, type UnchainedEvent } from '../src/audit/trail/audit-chain';
import { type AuditChainHead, SECTORS } from '../src/database/database.types';

/*
 * The yardstick of bench/compare.ts, not part of the product: the service's job done the
 * straightforward way, on plain node:http and better-sqlite3, on its own copy of a database the
 * service's migrations made. An HMAC check of the token, COUNT(*) and LIMIT/OFFSET per page
 * (`after` as `id > ?`), one transaction per decommission holding the change and its chained audit
 * event, JSON.stringify. Run with DATABASE_URL=sqlite:<path>, JWT_SECRET and PORT.
 */

const MAX_BODY_BYTES = 16 * 1024;
const ASSET_ID = /^[A-Z]{3}-[0-9]{4}$/;
const ASSET_ACCESS_DENIED = 'Asset not found or clearance insufficient';
const VESSEL_COLUMNS = 'id, name, class, length, crew, commander, sector, status';

const secret = process.env.JWT_SECRET ?? '';
const db = new Database((process.env.DATABASE_URL ?? '').replace(/^sqlite:/, ''));
db.pragma('journal_mode = WAL');
// The service's durability: a decommission answered 200 survives a power loss.
db.pragma('synchronous = FULL');

const statements = new Map<string, Statement>();
function prepared(sql: string): Statement {
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
}

const decommissionAsset = db.prepare(
  `UPDATE assets SET status = 'decommissioned', decommission_reason = ?, decommissioned_at = ?, authorized_by = ?
   WHERE asset_id = ? AND status = 'active'
   RETURNING asset_id, asset_type, former_pilot, decommission_reason, decommissioned_at, authorized_by`,
);
// Rewriting a column to itself takes the write lock before the head is read, as the service's append does.
const takeChainHead = db.prepare('UPDATE audit_chain_head SET event_count = event_count WHERE id = 1 RETURNING *');
const insertEvent = db.prepare(
  `INSERT INTO audit_events (id, occurred_at, action, outcome, reason, actor, actor_clearance, asset_id, request_id, ip, method, path, prev_hash, hash, details, leaf_hash, leaf_index)
   VALUES (@id, @occurred_at, @action, @outcome, @reason, @actor, @actor_clearance, @asset_id, @request_id, @ip, @method, @path, @prev_hash, @hash, @details, @leaf_hash, @leaf_index)`,
);
const insertTreeNode = db.prepare('INSERT INTO audit_tree_nodes (level, node_index, hash) VALUES (?, ?, ?)');
const moveChainHead = db.prepare(
  'UPDATE audit_chain_head SET event_count = @event_count, last_event_id = @last_event_id, last_hash = @last_hash, last_occurred_at = @last_occurred_at, frontier = @frontier WHERE id = 1',
);

/** The same trail as the service's: the head row taken first, the event chained onto it and added to the Merkle tree, the head moved. */
function appendEvent(fields: UnchainedEvent, at: Date): void {
  const { events, head, nodes } = chainEvents(takeChainHead.get() as AuditChainHead, [{ ...fields, recorded_at: at.toISOString() }]);
  insertEvent.run(events[0]);
  for (const { level, index, hash } of nodes) {
    insertTreeNode.run(level, index, hash);
  }
  moveChainHead.run(head);
}

const recordDenial = db.transaction((event: UnchainedEvent) => appendEvent(event, new Date()));
// One instant for the asset's decommissioned_at and its event's occurred_at, as the service's database clock gives.
const decommission = db.transaction((assetId: string, body: DecommissionBody, event: UnchainedEvent) => {
  const at = new Date();
  const row = decommissionAsset.get(body.reason, at.toISOString(), body.authorized_by, assetId);
  if (row) {
    appendEvent({ ...event, details: JSON.stringify({ reason: body.reason, authorized_by: body.authorized_by }) }, at);
  }
  return row;
});

interface Officer {
  id: string;
  clearance: number;
}

interface DecommissionBody {
  reason: string;
  authorized_by: string;
}

function send(res: ServerResponse, status: number, body: object): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) });
  res.end(json);
}

function sendError(res: ServerResponse, status: number, errorCode: string, message: string): void {
  send(res, status, { status: 'error', message, error_code: errorCode });
}

/** HS256 only: the signature, then `exp`, then the claims the routes need. */
function officerOf(req: IncomingMessage): Officer | undefined {
  const [scheme, token] = (req.headers.authorization ?? '').split(' ');
  const [header, payload, signature] = scheme === 'Bearer' && token ? token.split('.') : [];
  if (signature === undefined) {
    return undefined;
  }
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return undefined;
  }
  try {
    const { alg } = JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: unknown };
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { sub?: unknown; clearance?: unknown; exp?: unknown };
    const { sub, clearance, exp } = claims;
    const valid = alg === 'HS256' && typeof exp === 'number' && exp * 1000 > Date.now() && typeof sub === 'string';
    return valid && Number.isInteger(clearance) && (clearance as number) >= 0 && (clearance as number) <= 10
      ? { id: sub, clearance: clearance as number }
      : undefined;
  } catch {
    return undefined;
  }
}

function integerParam(query: URLSearchParams, name: string, fallback: number, max: number): number | undefined {
  const raw = query.get(name);
  const value = raw === null ? fallback : Number(raw);
  return Number.isInteger(value) && value >= 1 && value <= max ? value : undefined;
}

function listVessels(query: URLSearchParams, res: ServerResponse): void {
  const limit = integerParam(query, 'limit', 10, 100);
  const page = integerParam(query, 'page', 1, 1_000_000);
  const sector = query.get('sector');
  const after = query.get('after');
  if (limit === undefined || page === undefined || (sector !== null && !(SECTORS as readonly string[]).includes(sector))) {
    return sendError(res, 400, 'VALIDATION_ERROR', 'limit, page or sector is invalid');
  }
  const conditions: string[] = [];
  const parameters: (string | number)[] = [];
  if (sector !== null) {
    conditions.push('sector = ?');
    parameters.push(sector);
  }
  const where = () => (conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '');
  const { total } = prepared(`SELECT COUNT(*) AS total FROM vessels ${where()}`).get(...parameters) as { total: number };
  if (after !== null) {
    conditions.push('id > ?');
    parameters.push(after);
  }
  const offset = after === null ? (page - 1) * limit : 0;
  const vessels = prepared(`SELECT ${VESSEL_COLUMNS} FROM vessels ${where()} ORDER BY id LIMIT ? OFFSET ?`).all(...parameters, limit, offset) as { id: string }[];
  const nextCursor = vessels.length === limit ? vessels[vessels.length - 1].id : null;
  send(res, 200, { status: 'success', data: { vessels, total_count: total, page, per_page: limit, next_cursor: nextCursor } });
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  let body = '';
  for await (const chunk of req) {
    body += (chunk as Buffer).toString();
    if (body.length > MAX_BODY_BYTES) {
      return undefined;
    }
  }
  return body;
}

function decommissionBody(text: string): DecommissionBody | undefined {
  try {
    const { reason, authorized_by } = JSON.parse(text) as Partial<Record<keyof DecommissionBody, unknown>>;
    return typeof reason === 'string' && reason.trim() !== '' && reason.length <= 500 && typeof authorized_by === 'string' && authorized_by.trim() !== '' && authorized_by.length <= 100
      ? { reason, authorized_by }
      : undefined;
  } catch {
    return undefined;
  }
}

async function decommissionRoute(assetId: string, officer: Officer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const event = (outcome: 'allowed' | 'denied', reason: string | null): UnchainedEvent => ({
    action: 'asset.decommission',
    outcome,
    reason,
    actor: officer.id,
    actor_clearance: officer.clearance,
    asset_id: assetId,
    request_id: randomUUID(),
    ip: req.socket.remoteAddress ?? null,
    method: req.method ?? 'DELETE',
    path: req.url ?? '',
    details: null,
  });
  if (officer.clearance < 7) {
    recordDenial(event('denied', 'CLEARANCE_INSUFFICIENT'));
    return sendError(res, 403, 'ASSET_ACCESS_DENIED', ASSET_ACCESS_DENIED);
  }
  const text = await readBody(req);
  const body = text === undefined ? undefined : decommissionBody(text);
  if (!ASSET_ID.test(assetId) || !body) {
    return sendError(res, 400, 'VALIDATION_ERROR', 'asset_id, reason or authorized_by is invalid');
  }
  const data = decommission(assetId, body, event('allowed', null));
  if (!data) {
    recordDenial(event('denied', 'ASSET_NOT_FOUND'));
    return sendError(res, 404, 'ASSET_ACCESS_DENIED', ASSET_ACCESS_DENIED);
  }
  send(res, 200, { status: 'success', message: `Asset ${assetId} decommissioned successfully`, data });
}

async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://bare');
  if (req.method === 'GET' && url.pathname === '/health/live') {
    return send(res, 200, { status: 'success' });
  }
  const assetPath = /^\/v1\/assets\/([^/]+)$/.exec(url.pathname);
  const known = (req.method === 'GET' && url.pathname === '/v1/fleet/star-destroyers') || (req.method === 'DELETE' && assetPath);
  if (!known) {
    return sendError(res, 404, 'NOT_FOUND', 'No such route');
  }
  const officer = officerOf(req);
  if (!officer) {
    return sendError(res, 401, 'UNAUTHENTICATED', 'A valid bearer token is required');
  }
  return assetPath ? decommissionRoute(decodeURIComponent(assetPath[1]), officer, req, res) : listVessels(url.searchParams, res);
}

// An orderly exit, so that `--cpu-prof` writes its profile.
process.on('SIGTERM', () => process.exit(0));

createServer((req, res) => {
  route(req, res).catch((error: unknown) => {
    console.error(error);
    sendError(res, 500, 'INTERNAL_ERROR', 'Internal error');
  });
})
  .listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1')
  // What test/support/processes.ts waits for, as the service logs it.
  .once('listening', () => console.log(`listening on http://127.0.0.1:${process.env.PORT}`));
