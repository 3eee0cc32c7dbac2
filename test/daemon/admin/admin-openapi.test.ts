import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { adminOpenApi } from '../../../daemon/admin/admin-openapi.ts';
import { RESERVED_ADMIN_PREFIX } from '../../../daemon/admin/define-admin-route.ts';
import { ADMIN_ROUTES } from '../../../daemon/admin/routes/index.ts';

type Operation = {
  responses: Record<string, unknown>;
  requestBody?: unknown;
  parameters: Array<{ name: string }>;
};

describe('the admin OpenAPI document', () => {
  const doc = adminOpenApi(ADMIN_ROUTES) as { paths: Record<string, Record<string, Operation>> };

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every admin route, with its success status and the errors every admin route can answer', () => {
    for (const route of ADMIN_ROUTES) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(Object.keys(op?.responses ?? {})).toEqual(
        expect.arrayContaining([String(route.response.status), '401', '403', '421', '429']),
      );
      if (route.body)
        expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['413', '415']));
    }
  });

  it('takes an Idempotency-Key on every POST', () => {
    for (const route of ADMIN_ROUTES.filter((r) => r.method === 'POST')) {
      const names = doc.paths[route.path]?.post?.parameters.map((p) => p.name);
      expect(names).toContain('Idempotency-Key');
    }
  });

  it('leaves /admin/v1/servers to a later multi-server mode', () => {
    expect(Object.keys(doc.paths).filter((path) => path.startsWith(RESERVED_ADMIN_PREFIX))).toEqual([]);
  });
});
