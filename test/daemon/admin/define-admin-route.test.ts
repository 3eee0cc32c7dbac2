import { describe, expect, it } from 'vitest';
import { defineAdminRoute } from '../../../daemon/admin/define-admin-route.ts';
import { ADMIN_ROUTES } from '../../../daemon/admin/routes/index.ts';
import { validateInput } from '../../../daemon/http/stages/input.ts';
import { lazySchemaBuilds } from '../../../protocol/lazy-schema.ts';

const route = (path: string) => () =>
  defineAdminRoute({
    method: 'GET',
    path,
    operationId: 'probe',
    summary: 'probe',
    tag: 'Probe',
    access: { kind: 'owner' },
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

describe('the admin route table', () => {
  const listKeys = () => ADMIN_ROUTES.find((r) => r.operationId === 'listAdminKeys')!;
  const target = (search: string) => ({ searchParams: new URLSearchParams(search), malformedQuery: [] });

  it('builds no schema when it is imported', () => {
    expect(ADMIN_ROUTES.length).toBeGreaterThan(20);
    expect(lazySchemaBuilds()).toBe(0);
  });

  it("builds a route's schemas when its input is first validated, and keeps them", () => {
    expect(() => validateInput(listKeys(), {}, target('limit=0'), undefined)).toThrow(/query\.limit/);
    const builds = lazySchemaBuilds();
    expect(builds).toBeGreaterThan(0);
    expect(validateInput(listKeys(), {}, target('status=active'), undefined).query).toMatchObject({
      status: 'active',
      limit: 50,
    });
    expect(lazySchemaBuilds()).toBe(builds);
  });
});
