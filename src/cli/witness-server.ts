import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { cosign, cosignerKeyOf, splitNote } from '../audit';
import { type AddCheckpoint, judge, MalformedRequest, parseAddCheckpoint } from './witness-protocol';
import type { WitnessServeArguments } from './witness-arguments';
import { WitnessState } from './witness-state';

/** A request body larger than this is refused unread: 63 proof lines and a checkpoint with a few signatures take a few KiB. */
const BODY_MAX_BYTES = 64 * 1024;

class TooLarge extends Error {}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > BODY_MAX_BYTES) {
      throw new TooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function answer(response: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  response.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}

/**
 * The witness over HTTP: POST /add-checkpoint, judged by witness-protocol against the state, one request
 * per log origin at a time; a checkpoint it accepts is stored durably before the cosignature is returned.
 */
export class WitnessServer {
  private readonly server: Server;

  private constructor(
    private readonly args: WitnessServeArguments,
    private readonly state: WitnessState,
  ) {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        console.error(`add-checkpoint failed: ${error instanceof Error ? error.message : String(error)}`);
        if (!response.headersSent) {
          answer(response, 500, 'the witness could not store its state\n');
        }
      });
    });
    this.server.keepAliveTimeout = 60_000;
  }

  /** Opens the state and listens; resolves once it does. */
  static async start(args: WitnessServeArguments): Promise<WitnessServer> {
    const witness = new WitnessServer(args, WitnessState.open(args.state));
    witness.server.listen(args.port, args.host);
    await once(witness.server, 'listening');
    return witness;
  }

  get verifierKey(): string {
    return cosignerKeyOf(this.args.name, this.args.key);
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
    this.state.close();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (new URL(request.url ?? '/', 'http://witness').pathname !== '/add-checkpoint') {
      answer(response, 404, 'this witness answers POST /add-checkpoint\n');
      return;
    }
    if (request.method !== 'POST') {
      response.setHeader('Allow', 'POST');
      answer(response, 405, 'add-checkpoint takes POST\n');
      return;
    }
    let body: string;
    try {
      body = await readBody(request);
    } catch (error) {
      if (error instanceof TooLarge) {
        answer(response, 413, `the body is larger than ${BODY_MAX_BYTES} bytes\n`);
        return;
      }
      throw error;
    }
    let submitted: AddCheckpoint;
    try {
      submitted = parseAddCheckpoint(body);
    } catch (error) {
      if (error instanceof MalformedRequest) {
        answer(response, 400, `${error.message}\n`);
        return;
      }
      throw error;
    }
    const origin = submitted.note.slice(0, submitted.note.indexOf('\n'));
    // Judged and stored as one step per origin: two requests cannot both advance from the same size.
    const reply = await this.state.serialized(origin, async (held) => {
      const verdict = judge(submitted, this.args.logs, held);
      if (verdict.status === 409) {
        return { status: 409, body: `${verdict.size}\n`, contentType: 'text/x.tlog.size' };
      }
      if (verdict.status !== 200) {
        if (verdict.status === 422) {
          console.error(`refused ${origin}: ${verdict.message}; the request was:\n${body}`);
        }
        return { status: verdict.status, body: `${verdict.message}\n` };
      }
      if (held?.size !== verdict.checkpoint.size || held.root !== verdict.checkpoint.root) {
        await this.state.advance(verdict.checkpoint, submitted.note);
      }
      const time = Math.floor(Date.now() / 1000);
      return { status: 200, body: cosign(splitNote(submitted.note).body, this.args.name, this.args.key, time) };
    });
    answer(response, reply.status, reply.body, reply.contentType);
  }
}
