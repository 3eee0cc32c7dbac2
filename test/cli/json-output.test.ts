/**
 * `--json` on every command: the result as JSON on stdout, and any failure as one
 * `{"error":{"code","message"}}` line on stderr with the command's usual exit code
 * (docs/operations.md, "Scripting with --json").
 */
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { operatorCommandModulesFor } from '../../cli/command-modules.ts';
import { buildProgram } from '../../cli/program.ts';
import { registerRuntimeCommands } from '../../cli/runtime-commands.ts';
import { processIo } from '../../cli/io.ts';
import { dataDirPath } from '../daemon/store/temp-dir.ts';
import { run, runOk } from '../../harness/cli.ts';
import { premiumDataDir, createKey } from '../../harness/data-dir.ts';

const json = (text: string) => JSON.parse(text) as Record<string, unknown>;
const errorOf = (stderr: string) =>
  (json(stderr.trim()) as { error: { code: string; message: string } }).error;

describe('--json on the operator commands', () => {
  it('is accepted by every command', async () => {
    const program = buildProgram(
      processIo(),
      { register: registerRuntimeCommands },
      await operatorCommandModulesFor([]),
    );
    const leaves = (command: typeof program): (typeof program)[] =>
      command.commands.length === 0 ? [command] : command.commands.flatMap(leaves);
    for (const command of leaves(program)) {
      expect(
        command.options.map((option) => option.long),
        command.name(),
      ).toContain('--json');
    }
  });

  it('prints plan set, api enable and api disable as JSON', async () => {
    const dir = await dataDirPath();
    expect(json(await runOk(['init', '--data-dir', dir, '--json']))).toMatchObject({ changed: true });
    expect(json(await runOk(['plan', 'set', '--data-dir', dir, '--premium', 'on', '--json']))).toEqual({
      premium: true,
      until: null,
      features: [],
      active: true,
      changed: true,
    });
    expect(json(await runOk(['api', 'enable', '--data-dir', dir, '--json']))).toEqual({
      api_enabled: true,
      changed: true,
      premium_active: true,
    });
    expect(json(await runOk(['api', 'disable', '--data-dir', dir, '--json']))).toMatchObject({
      api_enabled: false,
      changed: true,
    });
  });

  it('prints keys revoke as JSON, and an unknown id as a JSON error', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const key = await createKey(dir);
    const revoked = json(await runOk(['keys', 'revoke', '--data-dir', dir, key.id, '--json']));
    expect(revoked).toMatchObject({ id: key.id, name: 'bot', changed: true });
    expect(typeof revoked['revoked_at']).toBe('string');
    const missing = await run(['keys', 'revoke', '--data-dir', dir, 'zzzzzzzzzzzz', '--json']);
    expect(missing.code).toBe(1);
    expect(errorOf(missing.stderr)).toMatchObject({ code: 'key_not_found' });
  });

  it('prints config check as JSON, and a bad file as a JSON error with exit code 2', async () => {
    const dir = dirname(await dataDirPath());
    const good = join(dir, 'good.toml');
    await writeFile(good, '[metrics]\nlisten = "127.0.0.1:9464"\n[log]\nformat = "json"\n');
    expect(json(await runOk(['config', 'check', '--config', good, '--json']))).toMatchObject({
      ok: true,
      api_listen: '127.0.0.1:8787',
      metrics_listen: '127.0.0.1:9464',
      log_format: 'json',
    });
    const bad = join(dir, 'bad.toml');
    await writeFile(bad, '[metrics]\nallow = ["10.0.0.0/8"]\n');
    const result = await run(['config', 'check', '--config', bad, '--json']);
    expect(result.code).toBe(2);
    expect(errorOf(result.stderr)).toEqual({
      code: 'config_invalid',
      message: `${bad}: metrics.allow: needs metrics.listen`,
    });
  });

  it('prints a usage error as a JSON error with exit code 2, and nothing else', async () => {
    const result = await run(['plan', 'set', '--premium', 'maybe', '--json']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(errorOf(result.stderr)).toMatchObject({ code: 'usage_error' });
    expect(errorOf(result.stderr).message).toContain('expected on or off');
  });

  it('prints a data dir error with its store code', async () => {
    const result = await run(['api', 'status', '--data-dir', join(await dataDirPath(), 'nope'), '--json']);
    expect(result.code).toBe(1);
    expect(errorOf(result.stderr).code).toBe('not_initialised');
  });

  it('prints the plain error line without --json', async () => {
    const result = await run(['plan', 'set', '--premium', 'maybe']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: option '--premium <on\|off>' argument 'maybe' is invalid/);
  });
});
