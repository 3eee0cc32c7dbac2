/** Routes that exist only in tests, to exercise pipeline mechanics no real route shows yet. */
import * as z from 'zod';
import { defineRoute } from '../../daemon/http/define-route.ts';
import { ROUTES } from '../../daemon/routes/index.ts';

/** Bumped by tests to change the cacheable test resource's representation. */
export const thing = { version: 1 };

export const TEST_ROUTES = [
  ...ROUTES,
  defineRoute({
    method: 'POST',
    path: '/v1/echo',
    operationId: 'echo',
    summary: 'echo',
    tag: 'Test',
    scope: 'server:read',
    body: z.object({ name: z.string().min(1), count: z.number().int().optional() }).strict(),
    response: { status: 201, schema: z.object({ name: z.string() }) },
    cache: { kind: 'no-store' },
    errors: [],
    handler: async ({ body }) => ({ name: body.name }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/things/{id}',
    operationId: 'thing',
    summary: 'thing',
    tag: 'Test',
    scope: 'server:read',
    params: z.object({ id: z.string().regex(/^[1-9][0-9]*$/, 'a positive integer without leading zeros') }),
    query: z.object({ limit: z.string().regex(/^\d+$/).optional() }).strict(),
    response: { status: 200, schema: z.object({ id: z.string(), version: z.number() }) },
    cache: { kind: 'private', maxAgeSec: 15 },
    errors: [],
    handler: async ({ params }) => ({ id: params.id, version: thing.version }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/things/special',
    operationId: 'special',
    summary: 'special',
    tag: 'Test',
    scope: 'server:read',
    response: { status: 200, schema: z.object({ special: z.literal(true) }) },
    cache: { kind: 'no-store' },
    errors: [],
    deprecated: { since: new Date('2026-06-01T00:00:00Z'), sunset: new Date('2027-06-01T00:00:00Z') },
    handler: async () => ({ special: true as const }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/broken',
    operationId: 'broken',
    summary: 'returns what its schema forbids',
    tag: 'Test',
    scope: 'server:read',
    response: { status: 200, schema: z.object({ ok: z.boolean() }).strict() },
    cache: { kind: 'no-store' },
    errors: [],
    handler: async () => ({ ok: 'yes', secret: 'db-password' }) as never,
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/throws',
    operationId: 'throws',
    summary: 'throws',
    tag: 'Test',
    scope: 'server:read',
    response: { status: 200, schema: z.object({}) },
    cache: { kind: 'no-store' },
    errors: [],
    handler: async () => {
      throw new Error('boom at /srv/secret/path');
    },
  }),
];
