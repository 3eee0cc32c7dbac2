import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseModCredentials, readModCredentials } from '../../bridge/index.ts';
import { suiteDataDir } from '../support/suite.ts';

describe('mod-credentials.json for the bridge', () => {
  const data = suiteDataDir();

  it('reads the file modgate init writes into the options a bridge takes', async () => {
    const credentials = await readModCredentials(join(data.dir, 'mod-credentials.json'));
    expect(credentials.url).toMatch(/^ws:\/\//);
    expect(credentials.identity.publicKey).toHaveLength(32);
    expect(credentials.identity.secretKey).toHaveLength(32);
    expect(credentials.daemonPublicKey).toHaveLength(32);
  });

  it('names the field that is missing or malformed', async () => {
    const text = await readFile(join(data.dir, 'mod-credentials.json'), 'utf8');
    const file = JSON.parse(text) as Record<string, string>;
    const without = (field: string) => JSON.stringify({ ...file, [field]: undefined });
    expect(() => parseModCredentials(without('daemon_public_key'))).toThrow('daemon_public_key is missing');
    expect(() => parseModCredentials(JSON.stringify({ ...file, mod_secret_key: 'AAAA' }))).toThrow(
      /mod_secret_key: key must be 32 bytes/,
    );
    expect(() => parseModCredentials(JSON.stringify({ ...file, url: 'http://x' }))).toThrow(/ws:\/\//);
  });
});
