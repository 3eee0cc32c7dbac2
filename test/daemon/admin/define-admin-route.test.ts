import { describe, expect, it } from 'vitest';
import { defineAdminRoute } from '../../../daemon/admin/define-admin-route.ts';

const route = (path: string) => () =>
  defineAdminRoute({
    method: 'GET',
    path,
    operationId: 'probe',
    summary: 'probe',
    tag: 'Probe',
    response: { status: 204 },
    errors: [],
    handler: async () => undefined,
  });

describe('defineAdminRoute', () => {
  it('refuses a path outside /admin/v1/', () => {
    expect(route('/v1/status')).toThrow(/not under \/admin\/v1/);
  });

  it('refuses /admin/v1/servers, kept for serving several game servers', () => {
    expect(route('/admin/v1/servers')).toThrow(/reserved/);
    expect(route('/admin/v1/servers/{server_id}/status')).toThrow(/reserved/);
  });

  it('accepts a path under /admin/v1/', () => {
    expect(route('/admin/v1/serverless')()).toMatchObject({ path: '/admin/v1/serverless' });
  });
});
