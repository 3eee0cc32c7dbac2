/**
 * The subject every per-address count counts against (admission, the per-address connection and
 * stream caps, the edge rate limit, the admin back-off, pending mod links): the address itself for
 * IPv4, its network for IPv6, since one host commonly holds a whole /64 and could otherwise rotate
 * past every per-address limit. The IPv6 prefix length is `[api] ipv6_prefix_length` (64 unless
 * set; docs/configuration.md). IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`, what a dual-stack
 * socket reports) count as IPv4.
 */
import ipaddr from 'ipaddr.js';

/** A client address to the subject it is counted as. */
export type AddressGrouping = (remoteAddress: string) => string;

export const DEFAULT_IPV6_PREFIX_LENGTH = 64;

const MAX_KNOWN = 4_096;

/** The grouping for an IPv6 prefix length; each parses an address once (a bounded memo, cleared when full). */
export function addressGrouping(ipv6PrefixLength: number = DEFAULT_IPV6_PREFIX_LENGTH): AddressGrouping {
  if (!Number.isInteger(ipv6PrefixLength) || ipv6PrefixLength < 1 || ipv6PrefixLength > 128) {
    throw new RangeError(`an IPv6 prefix length is 1 to 128, not ${ipv6PrefixLength}`);
  }
  const known = new Map<string, string>();
  return (remoteAddress) => {
    let subject = known.get(remoteAddress);
    if (subject === undefined) {
      subject = subjectOf(remoteAddress, ipv6PrefixLength);
      if (known.size >= MAX_KNOWN) known.clear();
      known.set(remoteAddress, subject);
    }
    return subject;
  };
}

/** The default grouping (IPv6 per /64), for the parts started without a configured one. */
export const edgeSubject: AddressGrouping = addressGrouping();

function subjectOf(remoteAddress: string, ipv6PrefixLength: number): string {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.process(remoteAddress);
  } catch {
    return remoteAddress;
  }
  if (address.kind() === 'ipv4') return address.toString();
  // The bytes, not the text: a zone (`fe80::1%eth0`) is no part of the network.
  const mask = ipaddr.IPv6.subnetMaskFromPrefixLength(ipv6PrefixLength).toByteArray();
  const network = address.toByteArray().map((byte, i) => byte & (mask[i] ?? 0));
  return `${ipaddr.fromByteArray(network).toString()}/${ipv6PrefixLength}`;
}
