import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { readRecords, writeRecords } from '.';
import type { RecordKind } from '../record-kinds';
import { readJsonRecords } from './json-records';
import { MAX_RECORD_BYTES, MAX_RECORD_DEPTH, type SourceItem, type SourceProblem, UnreadableFileError } from './record-source';

/** Each record with its place named, as messages name it. */
type Found = { kind: RecordKind; value: unknown; at: string; fieldSeparator: string } | SourceProblem;

async function collect(items: AsyncIterable<SourceItem>): Promise<Found[]> {
  const found: Found[] = [];
  for await (const item of items) {
    found.push('kind' in item ? { kind: item.kind, value: item.value, at: item.place(item.position), fieldSeparator: item.fieldSeparator } : item);
  }
  return found;
}

/** The text in chunks of `size` bytes, as a file stream may cut it anywhere, even inside a character. */
const chunked = (text: string, size: number) => {
  const bytes = Buffer.from(text);
  return Readable.from(Array.from({ length: Math.ceil(bytes.length / size) }, (_, index) => bytes.subarray(index * size, (index + 1) * size)));
};

const vessel = { id: 'ISD-001', name: 'Avenger ☄', class: 'Imperial II-class', length: '1600 meters', crew: 37000, commander: 'Needa', sector: 'Outer Rim', status: 'operational' };

async function rejection(items: AsyncIterable<SourceItem>): Promise<string> {
  try {
    await collect(items);
  } catch (error) {
    assert.ok(error instanceof UnreadableFileError, String(error));
    return error.message;
  }
  assert.fail('expected the file to be unreadable');
}

describe('readJsonRecords', () => {
  it('hands over each record with its list and index, however the file is cut into chunks', async () => {
    const text = JSON.stringify({ assets: [{ asset_id: 'TIE-0001' }], vessels: [vessel, { id: 'ISD-002' }] }, null, 2);
    for (const size of [1, 7, 64 * 1024]) {
      assert.deepEqual(await collect(readJsonRecords(chunked(text, size), 'fleet.json')), [
        { kind: 'asset', value: { asset_id: 'TIE-0001' }, at: 'assets[0]', fieldSeparator: '.' },
        { kind: 'vessel', value: vessel, at: 'vessels[0]', fieldSeparator: '.' },
        { kind: 'vessel', value: { id: 'ISD-002' }, at: 'vessels[1]', fieldSeparator: '.' },
      ]);
    }
  });

  it('reports unknown lists, lists that are not arrays and a document that is not an object', async () => {
    assert.deepEqual(await collect(readJsonRecords(['{"ships": [1], "vessels": {"a": {}}}'], 'f.json')), [
      { problem: 'ships: unknown list (expected assets and vessels)' },
      { problem: 'vessels: must be an array' },
    ]);
    assert.deepEqual(await collect(readJsonRecords(['[{"id": 1}]'], 'f.json')), [{ problem: 'f.json must hold an object { "assets": [...], "vessels": [...] }' }]);
    assert.deepEqual(await collect(readJsonRecords([' \n'], 'f.json')), [{ problem: 'f.json is empty: it must hold an object { "assets": [...], "vessels": [...] }' }]);
  });

  it('names the line and column of a syntax error, across chunks', async () => {
    const text = '{"vessels": [\n  {"id": "ISD-001"},\n  {"id": "ISD-002",, }\n]}';
    for (const size of [3, 1024]) {
      assert.match(await rejection(readJsonRecords(chunked(text, size), 'fleet.json')), /^fleet\.json line 3, column 20: not valid JSON \(Unexpected COMMA/);
    }
    assert.match(await rejection(readJsonRecords(chunked('{"vessels": [\n  xyz]}', 4), 'fleet.json')), /^fleet\.json line 2, column 3: not valid JSON \(Unexpected "x" in state/);
    assert.equal(await rejection(readJsonRecords(['{"vessels": [\n{"id"'], 'fleet.json')), 'fleet.json line 2, column 6: the file ends inside the JSON document');
    assert.equal(await rejection(readJsonRecords(['{}', ' {}'], 'fleet.json')), 'fleet.json line 1, column 4: more after the end of the JSON document');
    assert.match(await rejection(readJsonRecords(['{} {}'], 'fleet.json')), /^fleet\.json line 1, column 4: not valid JSON/);
  });
});

describe('readRecords: NDJSON', () => {
  it('reads a record a line with its kind, skipping blank lines, and reports each bad line and reads on', async () => {
    const text = ['{"kind":"vessel","id":"ISD-001"}', '', '{"kind":"asset","asset_id":"TIE-0001"}', '{oops', '{"id":"X-1"}', '{"kind":"ship"}', '"text"', '{"kind":"vessel","id":"ISD-002"}'].join('\r\n');
    assert.deepEqual(await collect(readRecords(chunked(text, 5), 'f.ndjson', { format: 'ndjson' })), [
      { kind: 'vessel', value: { id: 'ISD-001' }, at: 'f.ndjson line 1', fieldSeparator: ': ' },
      { kind: 'asset', value: { asset_id: 'TIE-0001' }, at: 'f.ndjson line 3', fieldSeparator: ': ' },
      { problem: `f.ndjson line 4: not valid JSON (${(() => { try { JSON.parse('{oops'); } catch (error) { return (error as Error).message; } })()})` },
      { problem: 'f.ndjson line 5: kind is required asset or vessel' },
      { problem: 'f.ndjson line 6: kind must be asset or vessel' },
      { problem: 'f.ndjson line 7: must be a JSON object' },
      { kind: 'vessel', value: { id: 'ISD-002' }, at: 'f.ndjson line 8', fieldSeparator: ': ' },
    ]);
  });
});

describe('readRecords: CSV', () => {
  const read = (text: string, kind: RecordKind = 'vessel') => collect(readRecords(chunked(text, 9), 'f.csv', { format: 'csv', kind }));

  it('reads rows under the header, empty cells as absent, whole-number integer cells as numbers', async () => {
    const text = 'crew,id,name\r\n37000,ISD-001,"Avenger, ""the"" first"\r\n12.5,ISD-002,\r\n-1,ISD-003,x\r\n';
    assert.deepEqual(await read(text), [
      { kind: 'vessel', value: { crew: 37000, id: 'ISD-001', name: 'Avenger, "the" first' }, at: 'f.csv line 2', fieldSeparator: ': ' },
      { kind: 'vessel', value: { crew: '12.5', id: 'ISD-002' }, at: 'f.csv line 3', fieldSeparator: ': ' },
      { kind: 'vessel', value: { crew: -1, id: 'ISD-003', name: 'x' }, at: 'f.csv line 4', fieldSeparator: ': ' },
    ]);
  });

  it('refuses a header with an unknown or repeated field, and reports a row with the wrong number of cells', async () => {
    await assert.rejects(read('id,speed,id\n'), /^Error: f\.csv line 1: the header names an unknown field "speed", repeats "id" \(the vessel fields are id, name/);
    assert.deepEqual(await read('id,name\nISD-001\n'), [{ problem: 'f.csv line 2: has 1 cells where the header has 2' }]);
    assert.deepEqual(await read(''), [{ problem: 'f.csv: no header row (the vessel fields are id, name, class, length, crew, commander, sector, status)' }]);
    await assert.rejects(read('asset_id,asset_type\n"TIE-0001,x\n', 'asset'), /^Error: f\.csv: not valid CSV \(Quote Not Closed/);
  });
});

describe('writeRecords', () => {
  const asset = { asset_id: 'TIE-0001', asset_type: 'vehicle', former_pilot: 'TK-421', status: 'active', decommission_reason: null, decommissioned_at: null, authorized_by: null };
  const rowsOf = (kind: RecordKind) => Readable.from(kind === 'asset' ? [[asset]] : [[vessel], [{ ...vessel, id: 'ISD-002' }]]);
  const text = async (chunks: AsyncIterable<string>) => {
    let whole = '';
    for await (const chunk of chunks) {
      whole += chunk;
    }
    return whole;
  };
  const presentAsset = { asset_id: 'TIE-0001', asset_type: 'vehicle', former_pilot: 'TK-421', status: 'active' };

  it('writes JSON and NDJSON without null fields, and reads them back as the same records', async () => {
    const json = await text(writeRecords({ format: 'json' }, rowsOf));
    assert.equal(json, `{"assets": [\n${JSON.stringify(presentAsset)}\n],\n"vessels": [\n${JSON.stringify(vessel)},\n${JSON.stringify({ ...vessel, id: 'ISD-002' })}\n]}\n`);
    const ndjson = await text(writeRecords({ format: 'ndjson' }, rowsOf));
    for (const [layout, written] of [[{ format: 'json' }, json], [{ format: 'ndjson' }, ndjson]] as const) {
      const values = (await collect(readRecords(Readable.from([written]), 'f', layout))).map((item) => ('kind' in item ? [item.kind, item.value] : item));
      assert.deepEqual(values, [['asset', presentAsset], ['vessel', vessel], ['vessel', { ...vessel, id: 'ISD-002' }]]);
    }
  });

  it('writes CSV of one kind with a header of its fields, null as an empty cell, and reads it back', async () => {
    const csv = await text(writeRecords({ format: 'csv', kind: 'asset' }, rowsOf));
    assert.equal(csv, 'asset_id,asset_type,former_pilot,status,decommission_reason,decommissioned_at,authorized_by\nTIE-0001,vehicle,TK-421,active,,,\n');
    const vessels = await text(writeRecords({ format: 'csv', kind: 'vessel' }, rowsOf));
    const values = (await collect(readRecords(Readable.from([vessels]), 'f', { format: 'csv', kind: 'vessel' }))).map((item) => ('kind' in item ? item.value : item));
    assert.deepEqual(values, [vessel, { ...vessel, id: 'ISD-002' }]);
  });

  it('writes no CSV cell that a spreadsheet opens as a formula, and reads every such value back unchanged', async () => {
    const names = ['=1+1', '+SUM(A1)', '-2', '@cmd', '\tTab', '\rReturn', '\uFF1D1', "'=quoted", "''@twice", "'plain", 'Avenger = 1', ''];
    const rows = () => Readable.from([names.map((name, index) => ({ ...vessel, id: `ISD-${index}`, name, crew: index === 0 ? -1 : index }))]);
    const csv = await text(writeRecords({ format: 'csv', kind: 'vessel' }, rows));

    const cells = csv.split('\n').slice(1, -1).map((line) => line.split(',')[1]);
    assert.deepEqual(cells, ["'=1+1", "'+SUM(A1)", "'-2", "'@cmd", "'\tTab", '"\'\rReturn"', "'\uFF1D1", "''=quoted", "'''@twice", "'plain", 'Avenger = 1', '']);
    assert.equal(csv.split('\n')[1].split(',')[4], '-1', 'a number is not text, and stays as it is');
    const values = (await collect(readRecords(Readable.from([csv]), 'f', { format: 'csv', kind: 'vessel' }))).map((item) => ('kind' in item ? item.value : item));
    assert.deepEqual(
      values.map((value) => (value as { name?: string }).name),
      names.map((name) => (name === '' ? undefined : name)),
    );
  });
});

describe('readJsonRecords against hostile records', () => {
  it(`refuses a record nested deeper than ${MAX_RECORD_DEPTH} levels in one line naming its place, without exhausting the stack`, async () => {
    const deep = `{"assets": [{"asset_id": "TIE-0001"},\n{"asset_id": ${'['.repeat(200_000)}${']'.repeat(200_000)}}]}`;
    const message = await rejection(readJsonRecords(chunked(deep, 65_536), 'deep.json'));
    assert.match(message, new RegExp(`^deep\\.json line 2, column \\d+: a record nested deeper than ${MAX_RECORD_DEPTH} levels; nothing was imported$`));
  });

  it('refuses one 200 MB record once it passes the size limit, in bounded memory (target: peak RSS under 400 MB)', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const chunks = (200 * 1024 * 1024) / chunk.length;
    let peakRss = process.memoryUsage().rss;
    let sent = 0;
    async function* huge() {
      yield Buffer.from('{"vessels": [{"id": "ISD-001"},\n  {"id": "ISD-002", "name": "');
      for (; sent < chunks; sent++) {
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
        yield chunk;
      }
      yield Buffer.from('"}]}');
    }

    const message = await rejection(readJsonRecords(huge(), 'huge.json'));
    console.log(`# target: a file with one 200 MB record: refused after ${((sent * chunk.length) / 1024 / 1024).toFixed(1)} MB read, peak RSS ${(peakRss / 1024 / 1024).toFixed(0)} MB (bound 400 MB)`);
    assert.equal(message, `huge.json line 2, column 3: a record longer than ${MAX_RECORD_BYTES} bytes; nothing was imported`);
    assert.ok(sent * chunk.length < 2 * MAX_RECORD_BYTES, 'reading stopped at the limit');
    assert.ok(peakRss < 400 * 1024 * 1024, `peak RSS ${peakRss}`);
  });
});

describe('readNdjsonRecords against hostile records', () => {
  it(`refuses a record nested deeper than ${MAX_RECORD_DEPTH} levels as JSON does, naming its line, without exhausting the stack`, async () => {
    const deep = `{"kind": "asset", "asset_id": "TIE-0001"}\n{"kind": "asset", "asset_id": ${'['.repeat(200_000)}${']'.repeat(200_000)}}\n`;
    const message = await rejection(readRecords(chunked(deep, 65_536), 'deep.ndjson', { format: 'ndjson' }));
    assert.match(message, new RegExp(`^deep\\.ndjson line 2, column 39: a record nested deeper than ${MAX_RECORD_DEPTH} levels; nothing was imported$`));
  });

  it(`reads a record nested exactly ${MAX_RECORD_DEPTH} levels, brackets inside its strings not counted`, async () => {
    const nested = `${'['.repeat(MAX_RECORD_DEPTH)}"]]]]]]]]]\\"[[[[[[[[["${']'.repeat(MAX_RECORD_DEPTH)}`;
    const found = await collect(readRecords(Readable.from([`{"kind": "asset", "asset_id": "TIE-0001", "notes": ${nested}}\n`]), 'ok.ndjson', { format: 'ndjson' }));
    assert.deepEqual(found, [{ kind: 'asset', value: { asset_id: 'TIE-0001', notes: JSON.parse(nested) }, at: 'ok.ndjson line 1', fieldSeparator: ': ' }]);
  });
});

describe('readNdjsonRecords against a huge line', () => {
  it('refuses a line longer than the record limit, naming it, before more of it is read', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    async function* huge() {
      yield Buffer.from('{"kind": "vessel", "id": "ISD-001"}\r\n{"kind": "vessel", "id": "ISD-002", "name": "');
      for (; sent < 3_200; sent++) {
        yield chunk;
      }
      yield Buffer.from('"}\n');
    }

    const message = await rejection(readRecords(Readable.from(huge()), 'huge.ndjson', { format: 'ndjson' }));
    assert.equal(message, `huge.ndjson line 2: a record longer than ${MAX_RECORD_BYTES} bytes; nothing was imported`);
    assert.ok(sent * chunk.length < 2 * MAX_RECORD_BYTES, 'reading stopped at the limit');
  });
});
