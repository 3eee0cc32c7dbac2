/** Listens and never closes. */
import { createServer } from 'node:net';
import { expect, it } from 'vitest';

it('listens', async () => {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  expect(server.listening).toBe(true);
});
