/**
 * Names a JSON body or query may never use as a field: they shadow `Object.prototype` members, so a
 * whitelist lookup such as `metadata[name]` finds the inherited member and lets the name through, and
 * an assignment such as `dto[name] = value` can replace the object's prototype.
 */
const PROTOTYPE_NAMES: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/** Deep enough for any body this API takes (all are flat), far below what could exhaust a stack. */
export const MAX_INPUT_DEPTH = 8;

/**
 * What is wrong with the shape of a parsed body or query, before any class-transformer or
 * class-validator code walks it: nesting deeper than MAX_INPUT_DEPTH, or a key that names a prototype
 * member. Walks iteratively, so a hostile depth cannot overflow the stack here either.
 */
export function describeUnsafeShape(input: unknown): string | null {
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value: input, path: '', depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, path, depth } = next;
    if (typeof value !== 'object' || value === null) {
      continue;
    }
    if (depth >= MAX_INPUT_DEPTH) {
      return `input nests deeper than ${MAX_INPUT_DEPTH} levels`;
    }
    for (const key of Object.keys(value)) {
      const keyPath = path ? `${path}.${key}` : key;
      if (PROTOTYPE_NAMES.has(key)) {
        return `${keyPath} is not an allowed field`;
      }
      pending.push({ value: (value as Record<string, unknown>)[key], path: keyPath, depth: depth + 1 });
    }
  }
  return null;
}
