/**
 * Open schemas (docs/errors.md, "From the mod link"): a response object may gain fields within
 * v1, so its JSON Schema must not say `additionalProperties: false`. zod writes that for every
 * object in output mode, even one that merely strips unknown keys; this `toJSONSchema` override
 * keeps it only where the zod object is `.strict()` (request bodies, queries, parameters).
 */
interface OverrideContext {
  zodSchema: unknown;
  jsonSchema: Record<string, unknown>;
}

export function openObjects(ctx: OverrideContext): void {
  const def = (ctx.zodSchema as { _zod?: { def?: { type?: string; catchall?: unknown } } })._zod?.def;
  if (def?.type !== 'object' || def.catchall !== undefined) return;
  if (ctx.jsonSchema['additionalProperties'] === false) delete ctx.jsonSchema['additionalProperties'];
}
