/**
 * The audit listing's keyset cursor: opaque to clients (base64url of `e<id>`), it names the last event
 * a page showed, and the next page holds the events before it. Only the position is in it, so a
 * cursor stays valid however many events are appended meanwhile.
 */
export function encodeAuditCursor(lastEventId: number): string {
  return Buffer.from(`e${lastEventId}`).toString('base64url');
}

/** The event id a cursor names, or undefined when it is not one this service wrote. */
export function decodeAuditCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,24}$/.test(cursor)) {
    return undefined;
  }
  const match = /^e([1-9][0-9]{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  const id = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(id) && encodeAuditCursor(id) === cursor ? id : undefined;
}
