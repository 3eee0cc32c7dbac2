/**
 * `modgate mod test`: the conformance harness (docs/mod-testing.md) as a command. It reads the
 * data dir the way `serve` does (the daemon's identity, the trusted mod keys, the mod-link url of
 * mod-credentials.json), so a game server pointed at the daemon is pointed at the harness too,
 * then prints a line per case and the verdict, or `--json`, and writes `--junit FILE`.
 * Exit 0 when every case passes or is skipped, 1 when one fails, 2 on usage or set-up errors.
 */
import { writeFile } from 'node:fs/promises';
import { formatHostPort, parseHostPort, type HostPort } from '../daemon/host-port.ts';
import { StoreError } from '../daemon/store/errors.ts';
import { identityFile } from '../daemon/store/identity.ts';
import { modCredentialsFile } from '../daemon/store/mod-credentials.ts';
import { modKeysFile } from '../daemon/store/mod-keys.ts';
import type { ModTestReport } from '../mod-test/index.ts';
import { CliError, EXIT_OPERATIONAL, EXIT_USAGE } from './errors.ts';
import { printJson, printLines, type CliIo } from './io.ts';
import { openDataDirOf } from './options.ts';

export interface ModTestFlags {
  dataDir?: string;
  listen?: HostPort;
  wait: number;
  opDeadline?: number;
  only: string[];
  skip: string[];
  json?: boolean;
  junit?: string;
  list?: boolean;
}

/** Where the mod dials: `--listen`, else the host and port of mod-credentials.json's url. */
function listenAddress(flags: ModTestFlags, url: string): HostPort {
  if (flags.listen) return flags.listen;
  const parsed = new URL(url);
  return parseHostPort(`${parsed.hostname}:${parsed.port || (parsed.protocol === 'wss:' ? '443' : '80')}`);
}

/** `--list`: the cases `--only` and `--skip` select, in run order, without waiting for a mod. */
async function listCases(flags: ModTestFlags, io: CliIo): Promise<void> {
  const { allCases, selectCases, NoCasesError } = await import('../mod-test/index.ts');
  const selected = selectCases(allCases(), flags.only, flags.skip);
  if (selected.length === 0)
    throw new CliError(new NoCasesError(flags.only, flags.skip).message, EXIT_USAGE, 'no_cases');
  const cases = selected.map(({ id, op, section, needs }) => ({
    id,
    op,
    section,
    needs: [...(needs ?? [])],
  }));
  if (flags.json) return printJson(io, { cases });
  printLines(
    io,
    ...cases.map((c) => {
      const needs = c.needs.length > 0 ? `  needs ${c.needs.join(', ')}` : '';
      return `${c.section.padEnd(5)}  ${c.id.padEnd(36)}${needs}`;
    }),
  );
}

export async function modTest(flags: ModTestFlags, io: CliIo): Promise<void> {
  if (flags.list) return listCases(flags, io);
  const {
    runModTest,
    resultLine,
    summaryLine,
    failureBlock,
    junitXml,
    SetupError,
    NoCasesError,
    SelfCheckError,
  } = await import('../mod-test/index.ts');
  const setUp = await readSetUp(flags, io);
  let report: ModTestReport;
  try {
    report = await runModTest({
      ...setUp,
      waitMs: flags.wait,
      ...(flags.opDeadline !== undefined ? { opDeadlineMs: flags.opDeadline } : {}),
      only: flags.only,
      skip: flags.skip,
      onSelfCheck: (vectors) => {
        if (!flags.json)
          printLines(
            io,
            `modgate mod test: its shared protocol code reproduces the ${vectors} golden vectors (PROTOCOL §8)`,
          );
      },
      onListening: (address) => {
        if (!flags.json)
          printLines(
            io,
            `modgate mod test: waiting for the mod on ws://${formatHostPort(address)}/ (up to ${flags.wait / 1000} s)`,
          );
      },
      onResult: (result) => {
        if (!flags.json) printLines(io, resultLine(result));
      },
    });
  } catch (error) {
    if (error instanceof SetupError) throw new CliError(error.message, EXIT_USAGE, 'no_mod');
    if (error instanceof NoCasesError) throw new CliError(error.message, EXIT_USAGE, 'no_cases');
    if (error instanceof SelfCheckError) throw new CliError(error.message, EXIT_USAGE, 'self_check_failed');
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new CliError(
        `ws://${formatHostPort({ host: setUp.host, port: setUp.port })}/ is in use (a running modgate serve?): stop it, or give --listen`,
        EXIT_USAGE,
        'address_in_use',
      );
    }
    throw error;
  }
  if (flags.junit) await writeFile(flags.junit, junitXml(report));
  if (flags.json) printJson(io, report);
  else printLines(io, ...failureBlock(report.cases), '', summaryLine(report.summary));
  if (report.summary.fail > 0) {
    throw new CliError(
      `the mod fails ${report.summary.fail} conformance case(s)`,
      EXIT_OPERATIONAL,
      'mod_test_failed',
    );
  }
}

/** The data dir's keys and the address; a data dir that cannot be read is a set-up error (2). */
async function readSetUp(flags: ModTestFlags, io: CliIo) {
  try {
    const dataDir = await openDataDirOf(flags, io);
    const [identity, modKeys, credentials] = await Promise.all([
      dataDir.read(identityFile),
      dataDir.read(modKeysFile),
      dataDir.read(modCredentialsFile),
    ]);
    const address = listenAddress(flags, credentials.url);
    return {
      identity: { publicKey: identity.daemonPublicKey, secretKey: identity.daemonSecretKey },
      trustedModKeys: modKeys.trusted.map((entry) => entry.publicKey),
      host: address.host,
      port: address.port,
    };
  } catch (error) {
    if (error instanceof StoreError) throw new CliError(error.message, EXIT_USAGE, error.code);
    throw error;
  }
}
