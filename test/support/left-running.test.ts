/**
 * The suite's check that a test file stops what it started (left-running.ts, run from
 * cleanup.ts around every file): a vitest run of three fixture files in one kept worker.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = 'test/support/left-running-fixtures/vitest.config.ts';

interface FileResult {
  readonly name: string;
  readonly status: string;
  readonly message: string;
}

let files: FileResult[] = [];

beforeAll(async () => {
  const report = await new Promise<string>((resolve) => {
    execFile(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--config', CONFIG, '--reporter=json'],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      (_error, stdout) => resolve(stdout), // the run fails by design: two fixtures leak
    );
  });
  const { testResults } = JSON.parse(report) as {
    testResults: { name: string; status: string; message: string }[];
  };
  files = testResults.map(({ name, status, message }) => ({
    name: name.split('/').pop() ?? name,
    status,
    message,
  }));
});

function result(name: string): FileResult | undefined {
  return files.find((file) => file.name === name);
}

describe('a test file that leaves something running', () => {
  it('fails naming a server it left listening', () => {
    expect(result('leaves-a-server.fixture.ts')).toMatchObject({ status: 'failed' });
    expect(result('leaves-a-server.fixture.ts')?.message).toContain('TCPServerWrap × 1');
  });

  it('fails naming where an unref’d interval it left was made', () => {
    expect(result('leaves-an-unrefd-interval.fixture.ts')).toMatchObject({ status: 'failed' });
    expect(result('leaves-an-unrefd-interval.fixture.ts')?.message).toMatch(
      /left running what it started: .*leaves-an-unrefd-interval\.fixture\.ts:\d+:\d+/,
    );
  });

  it('passes when its after-hooks stopped it, a one-shot timer about to fire included', () => {
    expect(result('stops-what-it-starts.fixture.ts')).toMatchObject({ status: 'passed' });
  });
});
