import { describe, expect, it } from 'vitest';
import { BlockedAddressError } from '../../../../daemon/events/webhooks/address-policy.ts';
import { failureOf, shownFailure } from '../../../../daemon/events/webhooks/delivery-failure.ts';

const coded = (code: string) => Object.assign(new Error(`remote said: ${code} secret text`), { code });

describe('delivery failure classes', () => {
  it('turns socket, DNS and TLS errors into a fixed class', () => {
    expect(failureOf(new BlockedAddressError('10.0.0.1'))).toBe('blocked_address');
    expect(failureOf(coded('ENOTFOUND'))).toBe('dns_error');
    expect(failureOf(coded('EAI_AGAIN'))).toBe('dns_error');
    expect(failureOf(coded('ECONNREFUSED'))).toBe('refused');
    expect(failureOf(coded('ECONNRESET'))).toBe('reset');
    expect(failureOf(coded('ETIMEDOUT'))).toBe('timeout');
    expect(failureOf(coded('EHOSTUNREACH'))).toBe('unreachable');
    expect(failureOf(coded('DEPTH_ZERO_SELF_SIGNED_CERT'))).toBe('tls_error');
    expect(failureOf(coded('ERR_TLS_CERT_ALTNAME_INVALID'))).toBe('tls_error');
    expect(failureOf(coded('CERT_HAS_EXPIRED'))).toBe('tls_error');
    expect(failureOf(new Error('something else'))).toBe('network_error');
  });

  it("shows an older daemon's free text as a class, never the text", () => {
    expect(shownFailure('timeout', 'failed')).toBe('timeout');
    expect(
      shownFailure('answered 307 (redirects are not followed), location: http://10.0.0.1/', 'failed'),
    ).toBe('other');
    expect(shownFailure('events 3 to 9 were dropped by retention before delivery', 'gap')).toBe(
      'events_dropped',
    );
    expect(shownFailure(null, 'delivered')).toBeNull();
  });
});
