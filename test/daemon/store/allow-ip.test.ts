import { describe, expect, it } from 'vitest';
import { isIpAllowed, normaliseAllowIp } from '../../../daemon/store/allow-ip.ts';

describe('normaliseAllowIp', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7/32'],
    ['2001:db8::1', '2001:db8::1/128'],
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['10.1.2.3/8', '10.0.0.0/8'],
    ['2001:DB8:0:0::/32', '2001:db8::/32'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    [' 192.168.1.0/24 ', '192.168.1.0/24'],
    ['::ffff:127.0.0.1', '127.0.0.1/32'],
    ['::ffff:127.0.0.1/128', '127.0.0.1/32'],
    ['::ffff:10.1.2.3/104', '10.0.0.0/8'],
    ['::ffff:0:0/96', '0.0.0.0/0'],
    ['::ffff:0:0/95', '::fffe:0:0/95'],
  ])('reads %s as %s', (text, canonical) => {
    expect(normaliseAllowIp(text)).toBe(canonical);
  });

  it.each([
    '',
    'abc',
    '1.2.3',
    '127.1',
    '0x7f.0.0.1',
    '256.0.0.1',
    '10.0.0.0/33',
    '::1/129',
    '10.0.0.0/08',
    '10.0.0.0/',
    'fe80::1%eth0',
    '10.0.0.0/8/8',
  ])('rejects %j', (text) => {
    expect(normaliseAllowIp(text)).toBeNull();
  });
});

describe('isIpAllowed', () => {
  const allowIps = ['10.0.0.0/8', '2001:db8::/32', '203.0.113.7/32'];

  it('allows every address when the list is empty', () => {
    expect(isIpAllowed([], '198.51.100.1')).toBe(true);
  });

  it('allows an address inside a range and refuses one outside', () => {
    expect(isIpAllowed(allowIps, '10.200.3.4')).toBe(true);
    expect(isIpAllowed(allowIps, '2001:db8:1::5')).toBe(true);
    expect(isIpAllowed(allowIps, '203.0.113.7')).toBe(true);
    expect(isIpAllowed(allowIps, '203.0.113.8')).toBe(false);
    expect(isIpAllowed(allowIps, '2001:db9::1')).toBe(false);
  });

  it('matches an IPv4-mapped IPv6 peer as its IPv4 address', () => {
    expect(isIpAllowed(allowIps, '::ffff:10.0.0.1')).toBe(true);
    expect(isIpAllowed(allowIps, '::ffff:11.0.0.1')).toBe(false);
  });

  it('matches an IPv4-mapped entry, as stored before entries were normalised, against both forms of the peer', () => {
    const mapped = ['::ffff:7f00:1/128', '::ffff:a00:0/104'];
    expect(isIpAllowed(mapped, '127.0.0.1')).toBe(true);
    expect(isIpAllowed(mapped, '::ffff:127.0.0.1')).toBe(true);
    expect(isIpAllowed(mapped, '10.9.8.7')).toBe(true);
    expect(isIpAllowed(mapped, '127.0.0.2')).toBe(false);
    expect(isIpAllowed(mapped, '::1')).toBe(false);
  });

  it('refuses a peer address it cannot parse', () => {
    expect(isIpAllowed(allowIps, 'not-an-ip')).toBe(false);
  });
});
