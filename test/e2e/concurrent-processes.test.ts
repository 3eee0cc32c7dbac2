import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DataDir } from '../../daemon/store/data-dir.ts';
import { dataDirPath } from '../daemon/store/temp-dir.ts';
import { premiumDataDir } from '../../harness/data-dir.ts';

const run = promisify(execFile);
const programUrl = new URL('../../cli/program.ts', import.meta.url).href;

/** A separate node process that runs `count` keys create commands at once. */
function createKeysInChild(dir: string, count: number): Promise<{ stdout: string }> {
  const script = `
    import { runCli } from ${JSON.stringify(programUrl)};
    const argv = ['keys', 'create', '--data-dir', ${JSON.stringify(dir)}, '--name', 'bot', '--scopes', 'all', '--json'];
    const codes = await Promise.all(Array.from({ length: ${count} }, () => runCli(argv, { stdout: { write() {} } })));
    process.stdout.write(codes.join(','));
  `;
  return run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
}

describe('keys create in two processes at once', () => {
  it('keeps every key: the data dir lock serialises the read-modify-writes', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const results = await Promise.all([createKeysInChild(dir, 5), createKeysInChild(dir, 5)]);
    expect(results.map((result) => result.stdout)).toEqual(['0,0,0,0,0', '0,0,0,0,0']);
    expect((await (await DataDir.open(dir)).snapshot()).keysById.size).toBe(10);
  });
});
