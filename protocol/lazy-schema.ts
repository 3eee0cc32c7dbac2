/**
 * Schemas built on first use. The three schema tables (the /v1 routes, the op catalogue, the
 * admin routes) declare each schema as a thunk, `lazySchema(() => z.object(…))` or a bare
 * `() => …`, so importing a table builds none of them: a route's schemas are built by its first
 * request, an op's by its first call, and the OpenAPI documents and tests build what they read
 * (docs/performance-history.md, "The schema tables built on first use").
 *
 * A declaration reads as before: `defineRoute`, `defineOp` and `defineAdminRoute` turn each thunk
 * into a getter (`schemaField`), so `route.query` and `OPS[name].args` are the schema itself and
 * every reader and exported type stays as it was. After the first build, a read is one call of
 * the getter, which returns the schema it holds.
 */

/** A schema as a declaration may give it: built already, or a thunk that builds it. */
export type Declared<S> = S | (() => S);

let builds = 0;

/** How many lazy schemas have been built in this process so far (tests prove the laziness). */
export function lazySchemaBuilds(): number {
  return builds;
}

/** The thunk, memoized: the first call builds the schema, every later call returns it. */
export function lazySchema<S>(build: () => S): () => S {
  let built = false;
  let schema: S;
  return function lazy(): S {
    if (built) return schema;
    schema = build();
    built = true;
    builds += 1;
    return schema;
  };
}

/**
 * Defines `key` on `target` from a declared schema: a schema as a plain property, a thunk as an
 * enumerable getter that builds it on first read. Nothing is defined for an absent schema.
 */
export function schemaField<T extends object>(target: T, key: string, declared: unknown): void {
  if (declared === undefined) return;
  const descriptor: PropertyDescriptor =
    typeof declared === 'function'
      ? { get: lazySchema(declared as () => unknown), enumerable: true }
      : { value: declared, enumerable: true };
  Object.defineProperty(target, key, descriptor);
}

/** A table of schemas by name, each built on its first read (the event types' data schemas). */
export function lazyFields<K extends string, S>(declared: Record<K, () => S>): Readonly<Record<K, S>> {
  const table = {} as Record<K, S>;
  for (const [key, build] of Object.entries(declared)) schemaField(table, key, build);
  return Object.freeze(table);
}
