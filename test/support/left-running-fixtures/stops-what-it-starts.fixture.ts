/** Closes its server and leaves a one-shot timer that fires soon after the file ends. */
import { createServer } from 'node:net';
import { afterAll, expect, it } from 'vitest';

const server = createServer();
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('listens, then its after-hook closes it', async () => {
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  setTimeout(() => undefined, 200).unref();
  expect(server.listening).toBe(true);
});
