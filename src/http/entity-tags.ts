import { hash } from 'node:crypto';
import { ValidationFailedError } from '../common';

/**
 * A revalidatable answer: only the client may keep it (never a shared cache), and it must ask again on
 * every use, so every use still passes the token check and gets 304 or the new data.
 */
export const REVALIDATE_ON_EVERY_USE = 'private, no-cache';

/** A strong entity tag for the representation `parts` identify: quoted, opaque and the same on every instance. */
export function strongEntityTag(...parts: unknown[]): string {
  return `"${hash('sha256', JSON.stringify(parts), 'base64url').slice(0, 27)}"`;
}

/** Room for a few dozen entity tags; a longer If-Match or If-None-Match is refused rather than scanned. */
export const CONDITION_FIELD_MAX_LENGTH = 1024;

/** An If-Match or If-None-Match as the OpenAPI document describes it: printable ASCII, bounded. */
export const CONDITION_FIELD_SCHEMA = { type: 'string', pattern: '^[ -~]*$', maxLength: CONDITION_FIELD_MAX_LENGTH } as const;

/** Refuses (400, naming the field) an If-Match or If-None-Match too long to be a list of tags a client holds. */
export function checkConditionField(name: 'If-Match' | 'If-None-Match', value: string | undefined): void {
  if (value !== undefined && value.length > CONDITION_FIELD_MAX_LENGTH) {
    throw new ValidationFailedError(`${name} must be at most ${CONDITION_FIELD_MAX_LENGTH} characters`);
  }
}

/** One entity tag of a list (RFC 9110, 8.8.3): optional W/, then quoted etagc characters, which include the comma. */
const ENTITY_TAG = /(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")/g;

/**
 * Whether If-None-Match names the current representation (RFC 9110, 13.1.2): `*`, or any tag of the
 * list equal to `etag` by weak comparison, so a W/ prefix does not matter. A field that lists nothing
 * readable matches nothing.
 */
export function ifNoneMatchIncludes(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) {
    return false;
  }
  if (ifNoneMatch.trim() === '*') {
    return true;
  }
  for (const [, opaqueTag] of ifNoneMatch.matchAll(ENTITY_TAG)) {
    if (opaqueTag === etag) {
      return true;
    }
  }
  return false;
}

/**
 * Whether If-Match names the current representation (RFC 9110, 13.1.1): `*` (any current one), or a
 * tag of the list equal to `etag` by strong comparison, so a weak W/ tag never matches.
 */
export function ifMatchIncludes(ifMatch: string, etag: string): boolean {
  if (ifMatch.trim() === '*') {
    return true;
  }
  for (const [tag, opaqueTag] of ifMatch.matchAll(ENTITY_TAG)) {
    if (!tag.startsWith('W/') && opaqueTag === etag) {
      return true;
    }
  }
  return false;
}
