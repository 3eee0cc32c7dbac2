import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../../../daemon/store/api-keys.ts';
import { readDataFile, writeDataFile, type DataFile } from '../../../daemon/store/data-file.ts';
import { identityFile } from '../../../daemon/store/identity.ts';
import { initDataDir } from '../../../daemon/store/init-data-dir.ts';
import { keysFile } from '../../../daemon/store/keys-file.ts';
import { modCredentialsFile } from '../../../daemon/store/mod-credentials.ts';
import { modKeysFile } from '../../../daemon/store/mod-keys.ts';
import { stateFile } from '../../../daemon/store/state.ts';
import { dataDirPath } from './temp-dir.ts';

async function initialised(): Promise<string> {
  const dir = await dataDirPath();
  await initDataDir(dir, { name: 'eu-1' });
  return dir;
}

describe('readDataFile', () => {
  it('names the file and the JSON problem when a file is not JSON', async () => {
    const dir = await initialised();
    await writeFile(join(dir, 'keys.json'), '{"keys": [');
    await expect(readDataFile(dir, keysFile)).rejects.toMatchObject({
      code: 'invalid_file',
      message: expect.stringMatching(
        new RegExp(`^${join(dir, 'keys.json')} is not valid JSON \\(.+\\); fix it by hand`),
      ),
    });
  });

  it('names the file and the field when a file breaks its schema', async () => {
    const dir = await initialised();
    await writeFile(
      join(dir, 'state.json'),
      JSON.stringify({ api_enabled: 'yes', plan: { premium: true, until: null, features: [] } }),
    );
    const error = await readDataFile(dir, stateFile).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'invalid_file' });
    expect((error as Error).message).toContain(`${join(dir, 'state.json')} is invalid: api_enabled:`);
  });

  it('points into arrays with indexes', async () => {
    const dir = await initialised();
    const { record } = createApiKey(
      {
        name: 'bot',
        scopes: ['server:read'],
        allowIps: [],
        ownerPlatformId: null,
        ownerSocialId: null,
        expiresAt: null,
      },
      new Date(),
    );
    await writeDataFile(dir, keysFile, [record]);
    const json = JSON.parse(await readFile(join(dir, 'keys.json'), 'utf8')) as {
      keys: { scopes: string[] }[];
    };
    json.keys[0]!.scopes = ['server:read', 'server:write'];
    await writeFile(join(dir, 'keys.json'), JSON.stringify(json));
    await expect(readDataFile(dir, keysFile)).rejects.toThrow(
      /keys\.json is invalid: keys\[0\]\.scopes\[1\]/,
    );
  });

  it('rejects a key that is not 32 bytes of base64', async () => {
    const dir = await initialised();
    const json = JSON.parse(await readFile(join(dir, 'identity.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(dir, 'identity.json'), JSON.stringify({ ...json, daemon_public_key: 'c2hvcnQ=' }));
    await expect(readDataFile(dir, identityFile)).rejects.toThrow(
      /identity\.json is invalid: daemon_public_key: expected a base64-encoded 32-byte key/,
    );
  });

  it('says to run modgate init when a file is missing', async () => {
    const dir = await dataDirPath();
    await expect(readDataFile(dir, keysFile)).rejects.toMatchObject({
      code: 'missing_file',
      message: expect.stringContaining(`run \`modgate init --data-dir ${dir}\``),
    });
  });
});

describe('writeDataFile', () => {
  it('round-trips every file through its schema', async () => {
    const dir = await initialised();
    const roundTrip = async <T>(file: DataFile<T>): Promise<void> => {
      const before = await readFile(join(dir, file.name), 'utf8');
      await writeDataFile(dir, file, await readDataFile(dir, file));
      expect(await readFile(join(dir, file.name), 'utf8')).toBe(before);
    };
    await roundTrip(identityFile);
    await roundTrip(modKeysFile);
    await roundTrip(modCredentialsFile);
    await roundTrip(stateFile);
    await roundTrip(keysFile);
  });

  it('writes snake_case JSON from the camelCase domain object', async () => {
    const dir = await initialised();
    await writeDataFile(dir, stateFile, {
      apiEnabled: true,
      plan: { premium: true, until: new Date('2031-01-01T00:00:00Z'), features: ['shop'] },
    });
    expect(JSON.parse(await readFile(join(dir, 'state.json'), 'utf8'))).toEqual({
      api_enabled: true,
      plan: { premium: true, until: '2031-01-01T00:00:00.000Z', features: ['shop'] },
    });
  });

  it('refuses to write a value its own schema would reject', async () => {
    const dir = await initialised();
    const identity = await readDataFile(dir, identityFile);
    await expect(writeDataFile(dir, identityFile, { ...identity, name: '' })).rejects.toThrow(
      /refusing to write an invalid identity\.json/,
    );
  });
});
