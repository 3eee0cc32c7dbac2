/**
 * IP allowlists of API keys (spec "Authentication" 3): CIDR ranges, IPv4 and IPv6; a bare
 * address means a /32 or /128. Entries are stored in one canonical form (`10.0.0.0/8`,
 * `2001:db8::/32`), so what `keys list` shows is exactly what is enforced.
 */
import ipaddr from 'ipaddr.js';

/**
 * The canonical `address/prefix` form of an allowlist entry, or null if it is not one. IPv4 must
 * be four decimal parts (ipaddr.js alone would also take `127.1` or `0x7f.0.0.1`); host bits
 * under the prefix are cleared (`10.1.2.3/8` becomes `10.0.0.0/8`).
 */
export function normaliseAllowIp(text: string): string | null {
  const entry = text.trim();
  const slash = entry.indexOf('/');
  const addressText = slash === -1 ? entry : entry.slice(0, slash);
  if (!isStrictAddress(addressText)) return null;
  try {
    if (slash === -1) {
      const address = ipaddr.parse(entry);
      return `${format(address)}/${address.kind() === 'ipv4' ? 32 : 128}`;
    }
    if (!/^\/(0|[1-9][0-9]{0,2})$/.test(entry.slice(slash))) return null;
    const [address, prefix] = ipaddr.parseCIDR(entry);
    const network =
      address.kind() === 'ipv4'
        ? ipaddr.IPv4.networkAddressFromCIDR(entry)
        : ipaddr.IPv6.networkAddressFromCIDR(entry);
    return `${format(network)}/${prefix}`;
  } catch {
    return null;
  }
}

/**
 * True when `allowIps` is empty (no restriction) or `remoteAddress` falls in one of its ranges.
 * An IPv4-mapped IPv6 peer (`::ffff:10.0.0.1`, as node:http reports IPv4 on a dual-stack
 * socket) is matched as the IPv4 address it carries.
 */
export function isIpAllowed(allowIps: readonly string[], remoteAddress: string): boolean {
  if (allowIps.length === 0) return true;
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.process(remoteAddress);
  } catch {
    return false;
  }
  return allowIps.some((entry) => {
    const [network, prefix] = ipaddr.parseCIDR(entry);
    return network.kind() === address.kind() && address.match(network, prefix);
  });
}

function isStrictAddress(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) || (ipaddr.IPv6.isValid(text) && !text.includes('%'));
}

function format(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  return address.kind() === 'ipv6' ? (address as ipaddr.IPv6).toRFC5952String() : address.toString();
}
