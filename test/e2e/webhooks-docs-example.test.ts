/**
 * The signature-checking receiver printed in docs/events.md ("Verifying a delivery"), run as it
 * is printed, as its own node process: it accepts what the daemon's webhook worker sends and
 * refuses a forged delivery.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/ports.ts';
import { eventually } from '../../harness/stack.ts';
import { startHarness, type Harness } from '../daemon/events/webhooks/service-support.ts';

let harness: Harness | undefined;
let child: ChildProcess | undefined;

afterEach(async () => {
  child?.kill();
  if (child && child.exitCode === null) await once(child, 'exit');
  await harness?.close();
});

async function docsExample(): Promise<string> {
  const page = await readFile(new URL('../../docs/events.md', import.meta.url), 'utf8');
  const section = page.slice(page.indexOf('### Verifying a delivery'));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error('no js example under "Verifying a delivery"');
  return match[1];
}

describe('the webhook receiver example in docs/events.md', () => {
  it('is at most 16 lines, verifies real deliveries and refuses a forged one', async () => {
    const code = await docsExample();
    expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(16);
    harness = await startHarness();
    const file = join(harness.data.dir, 'receiver.mjs');
    await writeFile(file, code);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hook`;
    const { id, secret } = await harness.add(url, '--events', 'player.banned');
    child = spawn(process.execPath, [file], {
      env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let printed = '';
    child.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const forged = async () =>
      fetch(url, {
        method: 'POST',
        headers: {
          'webhook-id': 'msg_x',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA',
        },
        body: '{}',
      }).then(
        (r) => r.status,
        () => 0,
      );
    await eventually(async () => (await forged()) === 401);
    const event = await harness.append('player.banned', {
      player: { platform_id: '76561198000000001', social_id: null },
      reason: 'spam',
    });
    await eventually(() => harness?.service.outbox(id).position === event);
    expect(harness.service.outbox(id).recent.at(-1)).toMatchObject({ outcome: 'delivered', status: 204 });
    await eventually(() => printed.includes("type: 'player.banned'"));
    expect(printed).toContain(`id: ${event}`);
  });
});
