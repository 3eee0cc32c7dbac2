/**
 * IP allowlists of API keys (spec "Authentication" 3): CIDR ranges, IPv4 and IPv6; a bare
 * address means a /32 or /128. Entries are stored in one canonical form (`10.0.0.0/8`,
 * `2001:db8::/32`), so what `keys list` shows is exactly what is enforced.
 *
 * Both sides are normalised the way ipaddr.js `process()` does: an IPv4-mapped IPv6 address
 * (`::ffff:10.0.0.1`) is the IPv4 address it carries, so an allowlist means the same address
 * however the operator wrote it and however the socket reports the client.
 */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** IPv4-mapped addresses are the last /96 of IPv6 (`::ffff:0:0/96`). */
const MAPPED_PREFIX = 96;

/**
 * The canonical `address/prefix` form of an allowlist entry, or null if it is not one. IPv4 must
 * be four decimal parts (ipaddr.js alone would also take `127.1` or `0x7f.0.0.1`); host bits
 * under the prefix are cleared (`10.1.2.3/8` becomes `10.0.0.0/8`); an IPv4-mapped range is
 * written as IPv4 (`::ffff:10.0.0.0/104` becomes `10.0.0.0/8`).
 */
export function normaliseAllowIp(text: string): string | null {
  const entry = text.trim();
  const slash = entry.indexOf('/');
  const addressText = slash === -1 ? entry : entry.slice(0, slash);
  if (!isStrictAddress(addressText)) return null;
  try {
    if (slash === -1) {
      const address = ipaddr.parse(entry);
      return formatRange(address, address.kind() === 'ipv4' ? 32 : 128);
    }
    if (!/^\/(0|[1-9][0-9]{0,2})$/.test(entry.slice(slash))) return null;
    const [address, prefix] = ipaddr.parseCIDR(entry);
    const network =
      address.kind() === 'ipv4'
        ? ipaddr.IPv4.networkAddressFromCIDR(entry)
        : ipaddr.IPv6.networkAddressFromCIDR(entry);
    return formatRange(network, prefix);
  } catch {
    return null;
  }
}

/**
 * True when `allowIps` is empty (no restriction) or `remoteAddress` falls in one of its ranges.
 * An IPv4-mapped IPv6 peer (`::ffff:10.0.0.1`, as node:http reports IPv4 on a dual-stack
 * socket) is matched as the IPv4 address it carries, and so is a mapped entry stored before
 * entries were normalised.
 */
export function isIpAllowed(allowIps: readonly string[], remoteAddress: string): boolean {
  if (allowIps.length === 0) return true;
  let address: Address;
  try {
    address = ipaddr.process(remoteAddress);
  } catch {
    return false;
  }
  return allowIps.some((entry) => {
    const [network, prefix] = processRange(...ipaddr.parseCIDR(entry));
    return network.kind() === address.kind() && address.match(network, prefix);
  });
}

/**
 * `process()` for a range: an IPv4-mapped IPv6 range of /96 or narrower is the IPv4 range it
 * carries. A wider IPv6 range stays IPv6 (it holds more than IPv4 clients).
 */
function processRange(address: Address, prefix: number): [Address, number] {
  if (address.kind() !== 'ipv6' || prefix < MAPPED_PREFIX) return [address, prefix];
  const v6 = address as ipaddr.IPv6;
  return v6.isIPv4MappedAddress() ? [v6.toIPv4Address(), prefix - MAPPED_PREFIX] : [address, prefix];
}

function formatRange(address: Address, prefix: number): string {
  const [network, bits] = processRange(address, prefix);
  return `${format(network)}/${bits}`;
}

function isStrictAddress(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) || (ipaddr.IPv6.isValid(text) && !text.includes('%'));
}

function format(address: Address): string {
  return address.kind() === 'ipv6' ? (address as ipaddr.IPv6).toRFC5952String() : address.toString();
}
