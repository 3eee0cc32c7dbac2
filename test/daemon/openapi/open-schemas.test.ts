/**
 * Forward compatibility (issue 12, item 9; docs/errors.md "From the mod link"): what the mod
 * sends may carry fields this daemon does not know, and the daemon drops them; request bodies
 * keep refusing unknown fields; the published schemas say which is which.
 */
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { formatHostPort } from '../../../daemon/host-port.ts';
import { DataDir } from '../../../daemon/store/data-dir.ts';
import { modCredentialsFile } from '../../../daemon/store/mod-credentials.ts';
import { startModBridge, type ModBridge } from '../../../bridge/bridge.ts';
import { startStack, type Stack } from '../../../harness/stack.ts';

let stack: Stack | undefined;
let bridge: ModBridge | undefined;

afterEach(async () => {
  await bridge?.close();
  await stack?.close();
  stack = undefined;
  bridge = undefined;
});

/** A real daemon and a mod (the reference bridge) whose server.status answer has an extra field. */
async function stackWithChattyMod(): Promise<Stack> {
  stack = await startStack({ sim: false });
  const credentials = await (await DataDir.open(stack.data.dir)).read(modCredentialsFile);
  bridge = startModBridge({
    url: `ws://${formatHostPort(stack.daemon.modLink)}`,
    identity: credentials.identity,
    daemonPublicKey: credentials.daemonPublicKey,
    modVersion: '2.1.0',
    handlers: { 'server.status': () => ({ player_count: 12, tps: 60, region: 'eu' }) as never },
  });
  await new Promise((resolve) => bridge?.once('connect', resolve));
  return stack;
}

type Schema = Record<string, unknown>;

/** Every `additionalProperties: false` in a JSON document, by path. */
function closedObjects(node: unknown, path = '$'): string[] {
  if (typeof node !== 'object' || node === null) return [];
  const here = (node as Schema)['additionalProperties'] === false ? [path] : [];
  return [
    ...here,
    ...Object.entries(node as Schema).flatMap(([key, child]) => closedObjects(child, `${path}.${key}`)),
  ];
}

/** The component names a set of schemas refers to, directly or through other components. */
function reachable(roots: unknown[], components: Record<string, Schema>): Set<string> {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const text = JSON.stringify(queue.pop());
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (name === undefined || seen.has(name)) continue;
      seen.add(name);
      queue.push(components[name]);
    }
  }
  return seen;
}

describe('open schemas for what the mod sends and what the API answers', () => {
  it('answers 200 without the fields a mod added to an op result, never 502', async () => {
    const live = await stackWithChattyMod();
    const response = await fetch(`${live.baseUrl}/v1/server`, {
      headers: { authorization: `Bearer ${live.key}` },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body['player_count']).toBe(12);
    expect(body).not.toHaveProperty('tps');
    expect(body).not.toHaveProperty('region');
  });

  it('still refuses a request body with an unknown field with 400 validation_error', async () => {
    stack = await startStack();
    const res = await stack.call('/v1/players/76561190000000042/social', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ social_id: '112233445566778899', surprise: 1 }),
    });
    expect(res.status).toBe(400);
    expect((res.json as { error: { code: string } }).error.code).toBe('validation_error');
  });

  it('publishes open response schemas and closed request bodies in /openapi.json', async () => {
    stack = await startStack({ sim: false });
    const doc = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: unknown; responses: Schema }>>;
      components: { schemas: Record<string, Schema> };
    };
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
    const bodies = operations.flatMap((op) => (op.requestBody ? [op.requestBody] : []));
    expect(bodies.length).toBeGreaterThan(0);
    const requestShapes = reachable(bodies, doc.components.schemas);
    const closed = Object.entries(doc.components.schemas)
      .filter(([name, schema]) => closedObjects(schema).length > 0 && !requestShapes.has(name))
      .map(([name]) => name);
    expect(closed).toEqual([]);
    expect(closedObjects(operations.map((op) => op.responses))).toEqual([]);
    expect(closedObjects(doc.components.schemas['ServerStatus'])).toEqual([]);
    expect(closedObjects(doc.components.schemas['ErrorEnvelope'])).toEqual([]);
    expect(doc.components.schemas['LinkRequest']?.['additionalProperties']).toBe(false);
  });

  it('publishes op args and results in ops.schema.json with no closed object', async () => {
    const text = await readFile(new URL('../../../protocol/ops.schema.json', import.meta.url), 'utf8');
    expect(closedObjects(JSON.parse(text))).toEqual([]);
  });
});
