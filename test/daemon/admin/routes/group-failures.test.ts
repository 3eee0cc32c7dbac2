/**
 * GET /admin/v1/group/failures on a daemon in no group (docs/admin.md, "Group failures"): 404
 * `not_found`, as GET /admin/v1/group answers. The daemon runs in-process; its admin.sock is the
 * real socket. The route in a group is test/e2e/group-sanctions.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { adminRequest } from '../../../../harness/admin.ts';
import { suiteStack } from '../../../support/suite.ts';

describe('the group failures route on a daemon in no group', () => {
  const stack = suiteStack();

  it('answers 404 not_found, as the other group routes do', async () => {
    for (const path of ['/admin/v1/group', '/admin/v1/group/failures']) {
      const answer = await adminRequest({ dataDir: stack.data.dir, path });
      const { code, message } = (answer.json as { error: { code: string; message: string } }).error;
      expect([path, answer.status, code]).toEqual([path, 404, 'not_found']);
      // Not an unknown route's 404: it says why.
      expect(message).toContain('This daemon is in no group');
    }
  });
});
