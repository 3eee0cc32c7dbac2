/**
 * Staff roles, route by route (docs/admin.md, "Roles"): the matrix in docs/admin.md and the
 * admin OpenAPI document's `x-roles` agree for every operation, and a real daemon answers a
 * token of each role 403 `forbidden` on exactly the operations its role is not given, and
 * something else on every other.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROLES, type AdminRole } from '../../daemon/admin/roles.ts';
import { adminRequest } from '../../harness/admin.ts';
import { makeDataDir, type TestDataDir } from '../../harness/data-dir.ts';
import { freePort } from '../../harness/ports.ts';
import { startServe, stop, type Served } from '../../harness/processes.ts';

interface Operation {
  method: string;
  path: string;
  roles: readonly string[];
  streams: boolean;
}

/** Every operation of the admin OpenAPI document, with its x-roles. */
function operationsOf(document: unknown): Operation[] {
  const paths = (document as { paths: Record<string, Record<string, Record<string, unknown>>> }).paths;
  return Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      roles: op['x-roles'] as string[],
      streams: JSON.stringify(op['responses']).includes('text/event-stream'),
    })),
  );
}

/** The "Roles" table of docs/admin.md: `METHOD path` → the roles it ticks. */
async function documentedMatrix(): Promise<Map<string, string[]>> {
  const text = await readFile(new URL('../../docs/admin.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('\n## Roles\n'), text.indexOf('\n### Staff sign-in\n'));
  const matrix = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const cells = /^\| `([A-Z]+ \/admin\/v1\/[^`]*)` \|(.*)\|$/.exec(line);
    if (!cells) continue;
    const ticks = (cells[2] as string).split('|').map((cell) => cell.trim() === '✓');
    matrix.set(
      cells[1] as string,
      ADMIN_ROLES.filter((_, index) => ticks[index]),
    );
  }
  return matrix;
}

describe('staff roles on the admin API', () => {
  let data: TestDataDir;
  let served: Served;
  let url: string;
  const tokens = new Map<AdminRole, string>();
  let operations: Operation[];

  beforeAll(async () => {
    data = await makeDataDir();
    for (const role of ADMIN_ROLES) {
      const created = await data.cli(
        ...['admin', 'tokens', 'create', '--data-dir', data.dir, '--name', role, '--role', role, '--json'],
      );
      tokens.set(role, (JSON.parse(created.stdout) as { token: string }).token);
    }
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    served = await startServe(data.dir, { extra: ['--admin-listen', `127.0.0.1:${port}`] });
    const document = await adminRequest({ url, token: tokens.get('viewer'), path: '/admin/v1/openapi.json' });
    operations = operationsOf(document.json);
  }, 60_000);

  afterAll(async () => {
    await stop(served.serve);
    await data.remove();
  });

  it('documents every operation of the OpenAPI document in the matrix, with the same roles', async () => {
    const matrix = await documentedMatrix();
    const fromDocument = new Map(operations.map((op) => [`${op.method} ${op.path}`, [...op.roles]]));
    expect(Object.fromEntries(matrix)).toEqual(Object.fromEntries(fromDocument));
  });

  it('answers each role 403 forbidden on exactly the operations outside its role', async () => {
    const seen: string[] = [];
    for (const op of operations) {
      for (const role of ADMIN_ROLES) {
        const { status, code } = await send(url, tokens.get(role) as string, op);
        const refused = status === 403 && code === 'forbidden';
        seen.push(`${role} ${op.method} ${op.path}: ${refused ? 'forbidden' : 'allowed'}`);
      }
    }
    const expected = operations.flatMap((op) =>
      ADMIN_ROLES.map(
        (role) => `${role} ${op.method} ${op.path}: ${op.roles.includes(role) ? 'allowed' : 'forbidden'}`,
      ),
    );
    expect(seen).toEqual(expected);
    // The walk covered the gateway's routes and the staff ones, with all three roles.
    expect(operations.length).toBeGreaterThan(25);
  });

  it('says in the refusal which role was refused and what the route needs', async () => {
    const answer = await adminRequest({ url, token: tokens.get('moderator'), path: '/admin/v1/keys' });
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject({
      error: { code: 'forbidden', details: { role: 'moderator', access: 'owner' } },
    });
  });
});

/**
 * One request of `op` with `token`: path parameters filled with a well-formed id, a write with
 * an empty JSON body (the role stage answers before the body is read; an allowed role gets the
 * route's own 400 or 404). A stream is read no further than its status.
 */
async function send(
  url: string,
  token: string,
  op: Operation,
): Promise<{ status: number; code: string | null }> {
  const path = op.path.replace(/\{[^}]+\}/g, 'aaaaaaaaaaaa');
  const write = op.method === 'POST' || op.method === 'PUT' || op.method === 'PATCH';
  const response = await fetch(`${url}${path}`, {
    method: op.method,
    headers: { authorization: `Bearer ${token}`, ...(write ? { 'content-type': 'application/json' } : {}) },
    body: write ? '{}' : null,
  });
  if (op.streams && response.status === 200) {
    await response.body?.cancel();
    return { status: 200, code: null };
  }
  const body = (await response.json().catch(() => null)) as { error?: { code?: string } } | null;
  return { status: response.status, code: body?.error?.code ?? null };
}
