/**
 * What an in-process daemon leaves behind when it starts and when it stops: a start-up step that
 * fails closes every file the steps before it opened (daemon/opened-so-far.ts), and a daemon
 * closed with its mod connected records the link going down (`mod.disconnected`, docs/events.md)
 * before it stops listening to the link.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDaemon, type DaemonOptions } from '../../daemon/daemon.ts';
import { FileEventLog } from '../../daemon/events/event-log.ts';
import { silentLogger } from '../../daemon/log/log.ts';
import { makeDataDir } from '../../harness/data-dir.ts';
import { startStack } from '../../harness/stack.ts';
import { openFilesUnder } from '../support/open-files.ts';

function optionsFor(dataDir: string): DaemonOptions {
  return {
    dataDir,
    listen: { host: '127.0.0.1', port: 0 },
    modListen: { host: '127.0.0.1', port: 0 },
    log: silentLogger,
  };
}

describe('a daemon started in-process', () => {
  it('closes every file it opened when a later start-up step fails, and can start once the fault is gone', async () => {
    const data = await makeDataDir();
    try {
      // The webhooks are read after the journal, the audit log, the key usage and the event log
      // are open: a broken webhooks.json fails that step.
      const webhooks = join(data.dir, 'webhooks.json');
      await writeFile(webhooks, '{', { mode: 0o600 });
      await expect(startDaemon(optionsFor(data.dir))).rejects.toThrow('webhooks.json is not valid JSON');
      expect(await openFilesUnder(data.dir)).toEqual([]);

      await rm(webhooks);
      const daemon = await startDaemon(optionsFor(data.dir));
      expect((await openFilesUnder(data.dir)).length).toBeGreaterThan(0);
      await daemon.close();
      expect(await openFilesUnder(data.dir)).toEqual([]);
    } finally {
      await data.remove();
    }
  });

  it('records mod.disconnected when it closes with the mod connected', async () => {
    const stack = await startStack();
    try {
      await stack.daemon.close();
      const events = await FileEventLog.open(stack.data.dir);
      try {
        const page = events.readAfter(0, 1_000);
        if (!Array.isArray(page)) throw new Error('the event log says its events are gone');
        expect(page.map((event) => event.type).at(-1)).toBe('mod.disconnected');
      } finally {
        await events.close();
      }
    } finally {
      await Promise.all([stack.sim?.close(), stack.data.remove()]);
    }
  });
});
