/**
 * The subject the edge (per-address) limit counts against: the address itself for IPv4, the /64
 * for IPv6, since one host commonly holds a whole /64 and could otherwise rotate past the limit.
 * IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`, what a dual-stack socket reports) count as IPv4.
 */
import ipaddr from 'ipaddr.js';

const known = new Map<string, string>();
const MAX_KNOWN = 4_096;

/** The subject for an address; parsed once per address (a bounded memo: cleared when full). */
export function edgeSubject(remoteAddress: string): string {
  let subject = known.get(remoteAddress);
  if (subject === undefined) {
    subject = subjectOf(remoteAddress);
    if (known.size >= MAX_KNOWN) known.clear();
    known.set(remoteAddress, subject);
  }
  return subject;
}

function subjectOf(remoteAddress: string): string {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.process(remoteAddress);
  } catch {
    return remoteAddress;
  }
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}
