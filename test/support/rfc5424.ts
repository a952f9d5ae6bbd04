/**
 * A strict reader of RFC 5424 messages and of RFC 6587 octet-counted frames, written from the RFCs'
 * ABNF (RFC 5424 section 6, RFC 6587 3.4.1) and not from src/delivery/syslog, so a test that reads what
 * the service sent with it checks the format against the standard, not against itself.
 */

export interface SyslogElement {
  id: string;
  /** The params in the order they came, values unescaped. */
  params: [name: string, value: string][];
}

export interface Rfc5424Message {
  facility: number;
  severity: number;
  version: number;
  /** null for the NILVALUE '-', as for every header field below. */
  timestamp: string | null;
  hostname: string | null;
  appName: string | null;
  procId: string | null;
  msgId: string | null;
  structuredData: SyslogElement[];
  /** MSG: absent when the message ends after STRUCTURED-DATA. */
  msg?: string;
  /** MSG began with the BOM, so it is MSG-UTF8 (RFC 5424 6.4). */
  msgHasBom: boolean;
}

const SP = 0x20;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
// FULL-DATE "T" FULL-TIME, TIME-SECFRAC 1*6DIGIT, TIME-OFFSET "Z" / ("+" / "-") hh:mm (RFC 5424 6.2.3)
const TIMESTAMP = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,6})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

export class Rfc5424Error extends Error {}

/**
 * Splits octet-counted frames off the front of `buffer`: `MSG-LEN SP SYSLOG-MSG`, MSG-LEN = NONZERO-DIGIT
 * *DIGIT, the message's length in octets. Returns the whole frames' messages and the bytes left over.
 */
export function takeFrames(buffer: Buffer): { messages: Buffer[]; rest: Buffer } {
  const messages: Buffer[] = [];
  let at = 0;
  for (;;) {
    const space = buffer.indexOf(SP, at);
    if (space === -1) {
      if (buffer.length - at > 10 || !/^\d*$/.test(buffer.subarray(at).toString('latin1'))) {
        throw new Rfc5424Error(`not an octet-counted frame: ${JSON.stringify(buffer.subarray(at, at + 20).toString('latin1'))}`);
      }
      return { messages, rest: buffer.subarray(at) };
    }
    const length = buffer.subarray(at, space).toString('latin1');
    if (!/^[1-9]\d*$/.test(length)) {
      throw new Rfc5424Error(`MSG-LEN is not NONZERO-DIGIT *DIGIT: ${JSON.stringify(length)}`);
    }
    const end = space + 1 + Number(length);
    if (end > buffer.length) {
      return { messages, rest: buffer.subarray(at) };
    }
    messages.push(buffer.subarray(space + 1, end));
    at = end;
  }
}

/** Reads one SYSLOG-MSG = HEADER SP STRUCTURED-DATA [SP MSG]; throws Rfc5424Error on anything the ABNF refuses. */
export function parseRfc5424(message: Buffer): Rfc5424Message {
  const reader = new Reader(message);
  const pri = /^<(\d{1,3})>([1-9]\d{0,2})$/.exec(reader.token());
  if (pri === null || Number(pri[1]) > 191 || (pri[1].length > 1 && pri[1].startsWith('0'))) {
    throw new Rfc5424Error('PRI VERSION is not "<" PRIVAL ">" VERSION with PRIVAL 0..191');
  }
  const timestamp = reader.headerField('TIMESTAMP', 40);
  if (timestamp !== null && !TIMESTAMP.test(timestamp)) {
    throw new Rfc5424Error(`TIMESTAMP is not RFC 3339 as RFC 5424 6.2.3 restricts it: ${timestamp}`);
  }
  const parsed: Rfc5424Message = {
    facility: Math.floor(Number(pri[1]) / 8),
    severity: Number(pri[1]) % 8,
    version: Number(pri[2]),
    timestamp,
    hostname: reader.headerField('HOSTNAME', 255),
    appName: reader.headerField('APP-NAME', 48),
    procId: reader.headerField('PROCID', 128),
    msgId: reader.headerField('MSGID', 32),
    structuredData: reader.structuredData(),
    msgHasBom: false,
  };
  if (reader.atEnd()) {
    return parsed;
  }
  reader.expect(SP, 'SP before MSG');
  const msg = reader.rest();
  if (msg.subarray(0, 3).equals(BOM)) {
    return { ...parsed, msg: new TextDecoder('utf-8', { fatal: true }).decode(msg.subarray(3)), msgHasBom: true };
  }
  return { ...parsed, msg: msg.toString('latin1') };
}

class Reader {
  private at = 0;

  constructor(private readonly bytes: Buffer) {}

  atEnd(): boolean {
    return this.at === this.bytes.length;
  }

  rest(): Buffer {
    const rest = this.bytes.subarray(this.at);
    this.at = this.bytes.length;
    return rest;
  }

  expect(byte: number, what: string): void {
    if (this.bytes[this.at] !== byte) {
      throw new Rfc5424Error(`expected ${what} at octet ${this.at}`);
    }
    this.at += 1;
  }

  /** PRINTUSASCII (%d33-126) up to the next SP, which it consumes. */
  token(): string {
    const start = this.at;
    while (this.at < this.bytes.length && this.bytes[this.at] !== SP) {
      if (this.bytes[this.at] < 33 || this.bytes[this.at] > 126) {
        throw new Rfc5424Error(`octet ${this.at} of the header is not PRINTUSASCII`);
      }
      this.at += 1;
    }
    const token = this.bytes.subarray(start, this.at).toString('ascii');
    this.expect(SP, 'SP after a header field');
    return token;
  }

  /** NILVALUE / 1*max PRINTUSASCII, and the SP after it (after MSGID, the one before STRUCTURED-DATA). */
  headerField(name: string, max: number): string | null {
    const start = this.at;
    while (this.at < this.bytes.length && this.bytes[this.at] !== SP) {
      this.at += 1;
    }
    const value = this.bytes.subarray(start, this.at).toString('latin1');
    if (!/^[!-~]+$/.test(value) || value.length > max) {
      throw new Rfc5424Error(`${name} is not NILVALUE or 1*${max}PRINTUSASCII: ${JSON.stringify(value)}`);
    }
    this.expect(SP, `SP after ${name}`);
    return value === '-' ? null : value;
  }

  /** STRUCTURED-DATA = NILVALUE / 1*SD-ELEMENT */
  structuredData(): SyslogElement[] {
    if (this.bytes[this.at] === 0x2d /* - */) {
      this.at += 1;
      return [];
    }
    const elements: SyslogElement[] = [];
    do {
      elements.push(this.element());
    } while (this.bytes[this.at] === 0x5b /* [ */);
    return elements;
  }

  /** SD-ELEMENT = "[" SD-ID *(SP SD-PARAM) "]"; SD-PARAM = PARAM-NAME "=" %d34 PARAM-VALUE %d34 */
  private element(): SyslogElement {
    this.expect(0x5b, '"[" opening an SD-ELEMENT');
    const element: SyslogElement = { id: this.sdName('SD-ID'), params: [] };
    while (this.bytes[this.at] === SP) {
      this.at += 1;
      const name = this.sdName('PARAM-NAME');
      this.expect(0x3d, '"=" after PARAM-NAME');
      this.expect(0x22, '%d34 opening PARAM-VALUE');
      element.params.push([name, this.paramValue()]);
    }
    this.expect(0x5d, '"]" closing an SD-ELEMENT');
    return element;
  }

  /** SD-NAME = 1*32PRINTUSASCII except '=', SP, ']', %d34 */
  private sdName(what: string): string {
    const start = this.at;
    while (this.at < this.bytes.length && this.bytes[this.at] >= 33 && this.bytes[this.at] <= 126 && ![0x3d, 0x5d, 0x22].includes(this.bytes[this.at])) {
      this.at += 1;
    }
    const name = this.bytes.subarray(start, this.at).toString('ascii');
    if (name.length < 1 || name.length > 32) {
      throw new Rfc5424Error(`${what} is not 1*32 of SD-NAME's characters at octet ${start}`);
    }
    return name;
  }

  /**
   * PARAM-VALUE, UTF-8, up to the closing %d34, which it consumes. '"', '\' and ']' MUST be escaped with
   * '\'; a '\' before any other character is kept as it is (RFC 5424 6.3.3).
   */
  private paramValue(): string {
    const octets: number[] = [];
    for (;;) {
      const byte = this.bytes[this.at];
      if (byte === undefined) {
        throw new Rfc5424Error('PARAM-VALUE runs to the end of the message');
      }
      this.at += 1;
      if (byte === 0x22) {
        return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(octets));
      }
      if (byte === 0x5d) {
        throw new Rfc5424Error(`an unescaped "]" in PARAM-VALUE at octet ${this.at - 1}`);
      }
      if (byte === 0x5c && [0x22, 0x5c, 0x5d].includes(this.bytes[this.at])) {
        octets.push(this.bytes[this.at]);
        this.at += 1;
      } else {
        octets.push(byte);
      }
    }
  }
}
