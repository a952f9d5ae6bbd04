import { createHash } from 'node:crypto';

/** JSON with every object's keys in code-point order, so two bodies that mean the same are the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** A request body's fingerprint: SHA-256 of its canonical JSON, hex; an absent body is JSON null. */
export function bodyFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body ?? null)).digest('hex');
}
