/** The collection envelope's schema (docs/pipeline.md), with `total` where the endpoint has one. */
import * as z from 'zod';

export function collection<T extends z.ZodType>(row: T, withTotal: boolean, id: string) {
  const base = {
    data: z.array(row),
    has_more: z.boolean(),
    next_cursor: z.string().nullable().describe('Pass back as `cursor`; null on the last page'),
  };
  const total = z.number().int().nonnegative().describe('Matches across all pages');
  return withTotal ? z.object({ ...base, total }).meta({ id }) : z.object(base).meta({ id });
}
