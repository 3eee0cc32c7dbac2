import { describe, expect, it } from 'vitest';
import {
  addEndpoint,
  editEndpoint,
  EndpointChangeError,
  enableEndpoint,
  MAX_SECRET_OVERLAP_SEC,
  rotateSecret,
} from '../../../../daemon/events/webhooks/endpoint-changes.ts';
import {
  MAX_ENDPOINTS,
  MAX_ENDPOINTS_PER_KEY,
  MAX_PREVIOUS_SECRETS,
  newEndpoint,
  signingSecrets,
  type WebhookEndpoint,
} from '../../../../daemon/events/webhooks/endpoint-file.ts';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function endpoint(overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  const created = newEndpoint(
    {
      url: 'https://bot.example/hook',
      events: ['*'],
      format: 'standard',
      allowHttp: false,
      sensitiveFields: false,
      description: null,
      createdBy: null,
      startAfter: 0,
    },
    T0,
  );
  return { ...created, ...overrides };
}

describe('rotating an endpoint secret', () => {
  it('signs with the new and the old secret until the overlap ends, then with the new one only', () => {
    const before = endpoint();
    const { rotated, endpoints } = rotateSecret([before], before.id, 60, T0);
    expect(endpoints).toEqual([rotated]);
    expect(rotated.secret).not.toBe(before.secret);
    expect(signingSecrets(rotated, at(59))).toEqual([rotated.secret, before.secret]);
    expect(signingSecrets(rotated, at(60))).toEqual([rotated.secret]);
  });

  it('stops the old secret at once with an overlap of 0', () => {
    const before = endpoint();
    const { rotated } = rotateSecret([before], before.id, 0, T0);
    expect(signingSecrets(rotated, T0)).toEqual([rotated.secret]);
  });

  it(`keeps at most ${MAX_PREVIOUS_SECRETS} old secrets, dropping the oldest and the expired`, () => {
    let current = endpoint();
    const secrets = [current.secret];
    for (let i = 0; i < 4; i += 1) {
      current = rotateSecret([current], current.id, 3_600, at(i)).rotated;
      secrets.push(current.secret);
    }
    expect(current.previousSecrets.map((p) => p.secret)).toEqual([secrets[3], secrets[2]]);
    const later = rotateSecret([current], current.id, 10, at(7_200)).rotated;
    expect(later.previousSecrets.map((p) => p.secret)).toEqual([current.secret]);
  });

  it('refuses an overlap beyond the maximum, a negative or fractional one, and an unknown id', () => {
    const before = endpoint();
    for (const overlap of [MAX_SECRET_OVERLAP_SEC + 1, -1, 1.5]) {
      expect(() => rotateSecret([before], before.id, overlap, T0)).toThrow(RangeError);
    }
    expect(() => rotateSecret([before], 'wh_0000000000000000', 60, T0)).toThrow(EndpointChangeError);
  });
});

describe('re-enabling an endpoint', () => {
  it('clears the disable and restarts the failure run from now', () => {
    const disabled = endpoint({ disabledAt: at(5), disabledReason: 'retry_window_exceeded' });
    const [enabled] = enableEndpoint([disabled], disabled.id, at(10));
    expect(enabled).toMatchObject({ disabledAt: null, disabledReason: null, enabledAt: at(10) });
  });

  it('refuses an endpoint whose key no longer works, with the owner_gone code', () => {
    const orphan = endpoint({ createdBy: 'key_x', disabledAt: at(5), disabledReason: 'key_revoked' });
    expect(() => enableEndpoint([orphan], orphan.id, at(10))).toThrow(
      expect.objectContaining({ code: 'owner_gone' }) as Error,
    );
  });

  it('refuses an endpoint disabled for failing whose key has stopped working since', () => {
    const failing = endpoint({ createdBy: 'key_x', disabledAt: at(5), disabledReason: 'failing' });
    expect(() => enableEndpoint([failing], failing.id, at(10), () => 'key_expired')).toThrow(
      expect.objectContaining({
        code: 'owner_gone',
        message: expect.stringContaining('key_expired'),
      }) as Error,
    );
  });
});

describe('adding an endpoint', () => {
  it(`holds ${MAX_ENDPOINTS_PER_KEY} per key, any number of the operator's, and ${MAX_ENDPOINTS} in all`, () => {
    let list: readonly WebhookEndpoint[] = [];
    for (let i = 0; i < MAX_ENDPOINTS_PER_KEY; i += 1)
      list = addEndpoint(list, endpoint({ createdBy: 'key_a' }));
    expect(() => addEndpoint(list, endpoint({ createdBy: 'key_a' }))).toThrow('This key already has');
    list = addEndpoint(list, endpoint({ createdBy: 'key_b' }));
    while (list.length < MAX_ENDPOINTS) list = addEndpoint(list, endpoint());
    expect(() => addEndpoint(list, endpoint())).toThrow(
      expect.objectContaining({ code: 'registry_full' }) as Error,
    );
  });
});

describe('editing an endpoint', () => {
  it('changes its events and description and keeps its URL, secret and position', () => {
    const before = endpoint({ startAfter: 7 });
    const [after] = editEndpoint([before], before.id, { events: ['player.banned'], description: 'mods' });
    expect(after).toEqual({ ...before, events: ['player.banned'], description: 'mods' });
    const [cleared] = editEndpoint([after!], before.id, { description: null });
    expect(cleared).toEqual({ ...after, description: null });
  });

  it('refuses an id that is not registered', () => {
    expect(() => editEndpoint([endpoint()], 'wh_0000000000000000', { events: ['*'] })).toThrow(
      EndpointChangeError,
    );
  });
});
