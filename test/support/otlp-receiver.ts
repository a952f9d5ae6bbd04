import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as an OTLP/JSON export carries it, with its attributes and its resource's as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: OtlpValue[] } };
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: (Omit<ReceivedSpan, 'attributes' | 'resource'> & { attributes?: OtlpAttribute[] })[] }[];
  }[];
}

function plain(value: OtlpValue): unknown {
  if (value.arrayValue) {
    return (value.arrayValue.values ?? []).map(plain);
  }
  return value.intValue !== undefined ? Number(value.intValue) : (value.stringValue ?? value.boolValue ?? value.doubleValue);
}

const attributesOf = (attributes: OtlpAttribute[] = []) => Object.fromEntries(attributes.map(({ key, value }) => [key, plain(value)]));

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT: exporters post to <url>/v1/traces. */
  url: string;
  /** The spans of the OTLP/JSON exports received so far. */
  spans: () => ReceivedSpan[];
  /** Exports received, in either encoding (a benchmark's protobuf ones are counted, not decoded). */
  exports: () => number;
  close: () => Promise<void>;
}

/** An OTLP/HTTP trace receiver, as a collector answers: 200 to every POST /v1/traces. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let exports = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      exports++;
      const json = req.headers['content-type']?.startsWith('application/json') === true;
      if (json) {
        for (const { resource, scopeSpans = [] } of (JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport).resourceSpans ?? []) {
          for (const span of scopeSpans.flatMap((scope) => scope.spans ?? [])) {
            spans.push({ ...span, attributes: attributesOf(span.attributes), resource: attributesOf(resource?.attributes) });
          }
        }
      }
      res.writeHead(200, { 'Content-Type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : undefined);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    exports: () => exports,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
