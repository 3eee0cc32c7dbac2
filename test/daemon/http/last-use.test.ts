import { afterEach, describe, expect, it } from 'vitest';
import { DataDir } from '../../../daemon/store/data-dir.ts';
import { keyUsageFile } from '../../../daemon/store/key-usage.ts';
import { parseApiKey } from '../../../daemon/store/api-keys.ts';
import { startStack, type Stack } from '../../../harness/stack.ts';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe('last use of an API key', () => {
  it('is recorded with the client address when a key authenticates, and written at stop', async () => {
    stack = await startStack({ daemon: { keyUsage: { flushDelayMs: 60_000 } } });
    const id = parseApiKey(stack.key)?.id as string;
    expect(stack.daemon.keyUsage.usage().get(id)).toBeUndefined();
    const response = await stack.call('/v1/server', { remoteAddress: '203.0.113.7' });
    expect(response.status).toBe(200);
    expect(stack.daemon.keyUsage.usage().get(id)).toMatchObject({ ip: '203.0.113.7' });
    const dataDir = await DataDir.open(stack.data.dir);
    expect((await dataDir.read(keyUsageFile)).size).toBe(0);
    await stack.daemon.close();
    expect((await dataDir.read(keyUsageFile)).get(id)).toMatchObject({ ip: '203.0.113.7' });
    // The rest of what stack.close() does, the daemon closed already: the simulator would go on
    // redialling it after the file.
    await stack.sim?.close();
    await stack.data.remove();
    stack = undefined;
  });

  it('is not recorded for a key that fails to authenticate', async () => {
    stack = await startStack();
    const id = parseApiKey(stack.key)?.id as string;
    const wrong = `${stack.key.slice(0, -1)}${stack.key.endsWith('a') ? 'b' : 'a'}`;
    const response = await stack.call('/v1/server', { headers: { authorization: `Bearer ${wrong}` } });
    expect(response.status).toBe(401);
    expect(stack.daemon.keyUsage.usage().get(id)).toBeUndefined();
  });
});
