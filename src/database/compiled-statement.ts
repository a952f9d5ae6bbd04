import { type Compilable, CompiledQuery, type Kysely } from 'kysely';
import type { DB } from './database.types';

/** Where a parameter's value comes from at each run: one of the named values, or fixed when it was built. */
type Binding<Values> = { named: keyof Values } | { fixed: unknown };

/**
 * A statement whose SQL Kysely builds once, for the few that every decision runs. Kysely builds and
 * compiles a statement anew on each call, which cost a decommission about a sixth of its server CPU
 * (docs/performance.md). `build` receives a marker in the place of each named value; the markers show
 * which parameter each value binds, and every run binds its values there, in the same SQL text.
 * Only for statements whose SQL does not depend on their values (no lists of varying length).
 */
export class CompiledStatement<Values extends object, Row = unknown> {
  private readonly sql: string;
  private readonly bindings: Binding<Values>[];

  constructor(db: Kysely<DB>, names: readonly (keyof Values & string)[], build: (db: Kysely<DB>, values: Values) => Compilable<Row>) {
    const markerOf = new Map(names.map((name) => [`\u0000${name}\u0000`, name]));
    const markers = Object.fromEntries([...markerOf].map(([marker, name]) => [name, marker])) as Values;
    const { sql, parameters } = build(db, markers).compile();
    this.sql = sql;
    this.bindings = parameters.map((parameter) => {
      const named = typeof parameter === 'string' ? markerOf.get(parameter) : undefined;
      return named === undefined ? { fixed: parameter } : { named };
    });
    const bound = new Set(this.bindings.flatMap((binding) => ('named' in binding ? [binding.named] : [])));
    const unbound = names.filter((name) => !bound.has(name));
    if (unbound.length > 0) {
      throw new Error(`the statement binds no parameter to ${unbound.join(', ')}: ${sql}`);
    }
  }

  /** Runs the statement on `executor` (the pool or a transaction) with these values. */
  async run(executor: Kysely<DB>, values: Values): Promise<Row[]> {
    const parameters = this.bindings.map((binding) => ('named' in binding ? values[binding.named] : binding.fixed));
    const { rows } = await executor.executeQuery<Row>(CompiledQuery.raw(this.sql, parameters));
    return rows;
  }
}
