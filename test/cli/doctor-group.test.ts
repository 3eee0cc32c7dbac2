/**
 * `modgate doctor` with `[group]` (docs/operations.md, "modgate doctor"; docs/group.md, "Setup")
 * against a real PostgreSQL (harness/postgres.ts): the database reachable or not, its TLS verified
 * with verify-full or failing without the CA, and the schema none, older, equal or newer.
 */
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable, startPostgres, type PostgresCluster } from '../../harness/postgres.ts';
import { doctor, freePort, readyDataDir } from './doctor-support.ts';

const postgres = postgresAvailable('test/cli/doctor-group.test.ts');
let cluster: PostgresCluster;
let dir: string;
let ports: { api: number; mod: number };
let configs = 0;

beforeAll(async () => {
  if (!postgres.run) return;
  cluster = await startPostgres(postgres.binDir);
  ports = { api: await freePort(), mod: await freePort() };
  dir = await readyDataDir(ports.mod);
});

afterAll(async () => {
  await cluster?.cleanup();
  if (dir) await rm(dirname(dir), { recursive: true, force: true });
});

/** doctor with a config file whose `[group]` has `databaseUrl`. */
async function doctorWith(databaseUrl: string) {
  configs += 1;
  const config = join(dirname(dir), `group-${configs}.toml`);
  await writeFile(config, `[group]\ndatabase_url = "${databaseUrl}"\nname = "doctor"\n`);
  return doctor(dir, ports, ['--config', config]);
}

describe.runIf(postgres.run)('doctor in group mode', () => {
  it('says the database answers, TLS is verified with verify-full, and no schema exists yet', async () => {
    await cluster.createDatabase('doctor_fresh');
    const report = await doctorWith(cluster.tlsUrl('doctor_fresh'));
    expect(report.line('group database')).toMatch(/^ok +group database +localhost:\d+\/doctor_fresh answers/);
    expect(report.line('group database tls')).toMatch(/^ok .*chain and name verified/);
    expect(report.line('group schema')).toMatch(/^ok .*none yet: the first daemon creates it/);
    expect(report.code).toBe(0);
  });

  it('fails TLS when the server’s certificate cannot be verified, naming the fix', async () => {
    const url = cluster.tlsUrl('postgres').replace(/&sslrootcert=[^&]*/, '');
    const report = await doctorWith(url);
    expect(report.line('group database tls')).toMatch(/^fail .*fails sslmode=verify-full/);
    expect(report.fix('group database tls')).toContain('sslrootcert=');
    expect(report.code).toBe(1);
  });

  it('fails when the database does not answer', async () => {
    const report = await doctorWith(`postgres://postgres@127.0.0.1:${await freePort()}/postgres`);
    expect(report.line('group database')).toMatch(/^fail .*does not answer/);
    expect(report.code).toBe(1);
  });

  it('says an older schema is upgraded at start, an equal one is fine and a newer one refuses', async () => {
    const url = await cluster.createDatabase('doctor_versions');
    const database = 'doctor_versions';
    await cluster.query(database, 'CREATE SCHEMA modgate');
    await cluster.query(database, 'CREATE TABLE modgate.schema_version (version integer NOT NULL)');
    await cluster.query(database, 'INSERT INTO modgate.schema_version VALUES (0)');
    expect((await doctorWith(url)).line('group schema')).toMatch(
      /^ok .*version 0: this modgate upgrades it to 1/,
    );
    await cluster.query(database, 'UPDATE modgate.schema_version SET version = 1');
    expect((await doctorWith(url)).line('group schema')).toMatch(/^ok .*version 1, as this modgate knows/);
    await cluster.query(database, 'UPDATE modgate.schema_version SET version = 99');
    const newer = await doctorWith(url);
    expect(newer.line('group schema')).toMatch(/^fail .*version 99, newer than this modgate knows \(1\)/);
    expect(newer.code).toBe(1);
    // Plain TCP over loopback: no TLS, and nothing to warn about.
    expect(newer.line('group database tls')).toMatch(/^ok .*none, over loopback/);
  });
});
