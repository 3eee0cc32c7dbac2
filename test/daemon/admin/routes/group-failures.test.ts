/**
 * GET /admin/v1/group/failures on a daemon in no group (docs/admin.md, "Group failures"): 404
 * `not_found`, as GET /admin/v1/group and the sanctions' list answer. The daemon runs in-process;
 * its admin.sock is the real socket. The route in a group is test/e2e/group-sanctions.test.ts's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../../../daemon/daemon.ts';
import { silentLogger } from '../../../../daemon/log/log.ts';
import { adminRequest } from '../../../../harness/admin.ts';
import { suiteDataDir } from '../../../support/suite.ts';

describe('the group failures route on a daemon in no group', () => {
  const data = suiteDataDir();
  let daemon: Daemon;
  beforeAll(async () => {
    daemon = await startDaemon({
      dataDir: data.dir,
      listen: { host: '127.0.0.1', port: 0 },
      modListen: { host: '127.0.0.1', port: 0 },
      log: silentLogger,
    });
  });
  afterAll(() => daemon.close());

  it('answers 404 not_found, as the other group routes do', async () => {
    for (const path of ['/admin/v1/group', '/admin/v1/group/failures']) {
      const answer = await adminRequest({ dataDir: data.dir, path });
      const code = (answer.json as { error: { code: string } }).error.code;
      expect([path, answer.status, code]).toEqual([path, 404, 'not_found']);
    }
  });
});
