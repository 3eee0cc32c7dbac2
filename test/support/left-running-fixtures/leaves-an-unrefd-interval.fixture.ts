/** Starts an unref'd heartbeat (it keeps no process alive, yet it runs beside the next file). */
import { expect, it } from 'vitest';

it('beats', () => {
  const heartbeat = setInterval(() => undefined, 1_000);
  heartbeat.unref();
  expect(heartbeat.hasRef()).toBe(false);
});
