/**
 * Our minisign verifier (cli/release/minisign.ts) against signatures the real `minisign` makes:
 * a good one passes and yields its trusted comment; a changed file, a changed trusted comment,
 * another key and the legacy (non-prehashed) format are each refused.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicKey, SignatureError, verifyMinisign } from '../../../cli/release/minisign.ts';
import { minisignInstalled, makeKey, type TestKey } from '../../support/release-key.ts';

const run = promisify(execFile);

describe.runIf(minisignInstalled())('verifyMinisign', () => {
  let dir: string;
  let key: TestKey;
  let other: TestKey;
  const data = Buffer.from('0123  modgate-linux-x64\n');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'modgate-minisign-'));
    key = await makeKey(dir);
    other = await makeKey(dir, 'other');
    await writeFile(join(dir, 'sums'), data);
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  async function sign(secret: string, ...extra: string[]): Promise<string> {
    await run('minisign', [
      '-S',
      '-s',
      secret,
      '-m',
      join(dir, 'sums'),
      '-t',
      'modgate 1.2.3 timestamp:1 file:SHA256SUMS',
      ...extra,
    ]);
    return readFile(join(dir, 'sums.minisig'), 'utf8');
  }

  it('accepts what minisign signed and returns the trusted comment', async () => {
    const signature = await sign(key.secret);
    expect(verifyMinisign(data, signature, parsePublicKey(key.line))).toBe(
      'modgate 1.2.3 timestamp:1 file:SHA256SUMS',
    );
    expect(parsePublicKey(await readFile(key.pub, 'utf8')).id).toMatch(/^[0-9A-F]{16}$/);
  });

  it('refuses a file changed after signing', async () => {
    const signature = await sign(key.secret);
    const changed = Buffer.from(data);
    changed[0] = 0x39;
    expect(() => verifyMinisign(changed, signature, parsePublicKey(key.line))).toThrow(
      'does not match the file',
    );
  });

  it('refuses a changed trusted comment', async () => {
    const signature = (await sign(key.secret)).replace('modgate 1.2.3', 'modgate 9.9.9');
    expect(() => verifyMinisign(data, signature, parsePublicKey(key.line))).toThrow('trusted comment');
  });

  it('refuses a signature by another key, naming both keys', async () => {
    const signature = await sign(other.secret);
    const trusted = parsePublicKey(key.line);
    expect(() => verifyMinisign(data, signature, trusted)).toThrow(`not the release key ${trusted.id}`);
  });

  it('refuses another key that claims the release key id', async () => {
    const lines = (await sign(other.secret)).split('\n');
    const sig = Buffer.from(lines[1] ?? '', 'base64');
    parsePublicKey(key.line).keyId.copy(sig, 2);
    lines[1] = sig.toString('base64');
    expect(() => verifyMinisign(data, lines.join('\n'), parsePublicKey(key.line))).toThrow(SignatureError);
  });

  it('refuses the legacy format, which signs the file without prehashing', async () => {
    const signature = await sign(key.secret, '-l');
    expect(() => verifyMinisign(data, signature, parsePublicKey(key.line))).toThrow('only prehashed');
  });
});
