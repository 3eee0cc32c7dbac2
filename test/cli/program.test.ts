import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../cli/errors.ts';
import { runCli } from '../../cli/program.ts';
import { run } from '../../harness/cli.ts';

async function runWith(
  register: (program: Command) => void,
  argv: string[],
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(
    argv,
    {
      stdout: { write: (text: string) => (out += text) },
      stderr: { write: (text: string) => (err += text) },
      env: {},
    },
    { register },
  );
  return { code, out, err };
}

describe('runCli', () => {
  it('prints the version from package.json, the mod-link protocol and the Node.js runtime', async () => {
    const { version } = JSON.parse(
      await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as {
      version: string;
    };
    const result = await run(['--version']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      `modgate ${version}\nmod-link protocol 1\nnode ${process.version} (${process.execPath})\n`,
    );
  });

  it('prints help to stdout with exit code 0', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['init', 'keys', 'api', 'plan', 'mod']) expect(result.stdout).toContain(command);
  });

  it("exits 2 on an unknown command or option, with commander's one-line message", async () => {
    expect(await run(['frobnicate'])).toEqual({
      code: 2,
      stdout: '',
      stderr: "error: unknown command 'frobnicate'\n",
    });
    const option = await run(['keys', 'list', '--colour']);
    expect(option.code).toBe(2);
    expect(option.stderr).toBe("error: unknown option '--colour'\n");
  });

  it('exits 2 on a missing required option', async () => {
    const result = await run(['keys', 'create', '--data-dir', '/nowhere', '--name', 'bot']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: "error: required option '--scopes <list>' not specified\n",
    });
  });

  it('routes output and errors of registered commands through the same io, even ones built separately', async () => {
    const extra = new Command('serve').option('--listen <addr>').action(() => {
      throw new UsageError('--listen must be HOST:PORT');
    });
    const result = await runWith((program) => program.addCommand(extra), ['serve', '--listen', 'x']);
    expect(result).toEqual({ code: 2, out: '', err: 'error: --listen must be HOST:PORT\n' });
    const unknown = await runWith(
      (program) => program.addCommand(new Command('sim').action(() => undefined)),
      ['sim', '--nope'],
    );
    expect(unknown).toEqual({ code: 2, out: '', err: "error: unknown option '--nope'\n" });
  });

  it('turns an unexpected failure into one line and exit code 1', async () => {
    const result = await runWith(
      (program) =>
        program.command('boom').action(() => {
          throw new TypeError('undefined is not a function');
        }),
      ['boom'],
    );
    expect(result).toEqual({
      code: 1,
      out: '',
      err: 'error: unexpected failure: undefined is not a function (set MODGATE_DEBUG=1 for details)\n',
    });
  });
});
