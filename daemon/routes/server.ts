/** GET /v1/server (the OpenAPI document, docs/openapi.md): identity from the daemon, live facts from the mod. */
import * as z from 'zod';
import { defineRoute } from '../http/define-route.ts';
import { lazySchema } from '../../protocol/lazy-schema.ts';

export const ServerStatus = lazySchema(() =>
  z
    .object({
      server_id: z.string().describe('Stable identifier of the server the key is bound to'),
      name: z.string().nullable().describe('Display name set by the operator (`modgate init --name`)'),
      online: z.literal(true).describe('Always true in a 200; an offline server is a 503'),
      player_count: z
        .number()
        .int()
        .nonnegative()
        .nullable()
        .describe('Null when the mod does not report it'),
      mod_version: z.string().nullable(),
    })
    .meta({ id: 'ServerStatus' }),
);

export const getServer = defineRoute({
  method: 'GET',
  path: '/v1/server',
  operationId: 'getServer',
  summary: 'Server identity and live status',
  tag: 'Server',
  scope: 'server:read',
  response: { status: 200, schema: ServerStatus },
  // Live: never cached, every request reaches the game server.
  cache: { kind: 'no-store' },
  errors: ['server_unavailable', 'gateway_timeout'],
  async handler({ call, server }) {
    const status = await call('server.status', {});
    return {
      server_id: server.serverId,
      name: server.name,
      online: true as const,
      player_count: status.player_count,
      mod_version: server.modVersion,
    };
  },
});
