import * as z from 'zod';
import { defineOp } from './define.ts';

/** Live server facts only the game knows. Identity (server id, name) is the daemon's own. */
export const serverStatus = defineOp({
  name: 'server.status',
  args: () => z.object({}),
  result: () =>
    z.object({
      player_count: z.number().int().nonnegative().nullable(),
    }),
  deadlineMs: 5_000,
  mutates: false,
});
