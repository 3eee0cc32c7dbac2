import { describe, expect, it } from 'vitest';
import {
  newEndpoint,
  readEndpoints,
  updateEndpoints,
} from '../../../../daemon/events/webhooks/endpoint-file.ts';
import { runOk } from '../../../../harness/cli.ts';
import { createKey, premiumDataDir } from '../../../../harness/data-dir.ts';
import { dataDirPath } from '../../store/temp-dir.ts';

function endpointOf(createdBy: string | null) {
  const input = {
    url: 'https://hooks.example.com/modgate',
    events: ['*'] as const,
    format: 'standard' as const,
    allowHttp: false,
    sensitiveFields: false,
    description: null,
    createdBy,
    startAfter: 0,
  };
  return newEndpoint({ ...input, events: [...input.events] }, new Date());
}

describe('handing webhooks over on a key roll', () => {
  it('gives the rolled key’s webhooks to the new key and leaves the others alone', async () => {
    const dir = await premiumDataDir(await dataDirPath());
    const rolled = await createKey(dir);
    const other = await createKey(dir);
    await updateEndpoints(dir, () => [endpointOf(rolled.id), endpointOf(other.id), endpointOf(null)]);
    const answer = JSON.parse(await runOk(['keys', 'roll', '--data-dir', dir, rolled.id, '--json'])) as {
      id: string;
    };
    const owners = (await readEndpoints(dir)).map((endpoint) => endpoint.createdBy);
    expect(owners).toEqual([answer.id, other.id, null]);
  });
});
