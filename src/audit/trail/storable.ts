/** The longest value each audit field keeps; longer values are cut and end with a marker. */
export const AUDIT_FIELD_LIMITS = {
  path: 1024,
  assetId: 64,
  actor: 256,
  method: 32,
  requestId: 128,
  ip: 64,
  /** Each of an allowed decommission's `details`, longer than the request may send, so never cut. */
  detail: 1024,
} as const;

/** Room kept at the end of a cut value for its marker, e.g. `…[+14976 chars]`. */
const MARKER_ROOM = 24;
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * What a request carried, made safe to store the same way on both engines: control characters
 * (PostgreSQL refuses NUL) become visible `\u0000` escapes, a long value is cut with a marker that
 * says how much was dropped, and unpaired surrogates become U+FFFD.
 */
export function storable(value: string, maxLength: number): string {
  let text = value.replace(CONTROL_CHARACTERS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (text.length > maxLength) {
    const keep = maxLength - MARKER_ROOM;
    text = `${text.slice(0, keep)}…[+${text.length - keep} chars]`;
  }
  return text.replace(LONE_SURROGATE, '\ufffd');
}
