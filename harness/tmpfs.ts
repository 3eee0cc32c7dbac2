/**
 * A small tmpfs for tests of a really full disk (root only): mounted on a fresh folder when the
 * module that needs it loads, so a test file can skip (`describe.runIf`) where mounting is
 * impossible and say why. MODGATE_REQUIRE_TMPFS=1 (.ci/run) turns that skip into a failure.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Tmpfs {
  /** Where it is mounted (mode 0700). */
  readonly path: string;
  /** Why it could not be mounted; null once mounted. */
  readonly failure: string | null;
  /** Whether the test must run: mounted, or required (then it fails on `failure`). */
  readonly run: boolean;
  unmount(): void;
}

/** Mounts a tmpfs of `size` (`256k`); says on stderr, naming `testFile`, when it cannot. */
export function mountTmpfs(size: string, testFile: string): Tmpfs {
  const path = mkdtempSync(join(tmpdir(), 'modgate-full-disk-'));
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', path], {
    encoding: 'utf8',
  });
  const failure = mount.status === 0 ? null : mount.stderr.trim() || (mount.error?.message ?? 'mount failed');
  const required = process.env['MODGATE_REQUIRE_TMPFS'] === '1';
  if (failure !== null && !required) {
    process.stderr.write(`\n${testFile}: SKIPPED, cannot mount a tmpfs (${failure}); run as root\n\n`);
  }
  return {
    path,
    failure,
    run: failure === null || required,
    unmount: () => {
      if (failure === null) spawnSync('umount', [path]);
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** Fills the file system holding `folder` until a write fails; returns the filler's path. */
export async function fillDisk(folder: string): Promise<string> {
  const filler = join(folder, 'filler');
  try {
    await writeFile(filler, Buffer.alloc(64 * 1024 * 1024));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return filler;
    throw error;
  }
  throw new Error(`${folder} took 64 MiB: not a small tmpfs`);
}
