/**
 * Which addresses a webhook may connect to (outbound requests a user can aim are fenced): an
 * endpoint registered through /v1 reaches public unicast addresses only; one the operator
 * registered (the CLI) may also reach loopback (a bot on the same host) and the networks named in
 * `[webhooks] allow_networks`. Nobody reaches the daemon's own listeners (API, mod link,
 * metrics, admin). docs/events.md, "Where a webhook may point".
 *
 * Modelled on request-filtering-agent (npm), which checks the address of the socket once it is
 * connected. Here the check comes before any connect: the agent's `lookup` resolves the name
 * once, refuses when ANY resolved address is forbidden, and hands the socket only the addresses
 * it checked, so there is no second lookup to rebind (DNS rebinding). An IP-literal host skips
 * `lookup` in node:net, so it is checked on its own (checkLiteral) before the request is made.
 * Ranges are matched as CIDRs with ipaddr.js, after turning an IPv4-mapped IPv6 address into the
 * IPv4 address it carries.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { HostPort } from '../../host-port.ts';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/** Name → addresses; dns.lookup (what node:net would use) unless a test injects another. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface AddressRule {
  /** Loopback addresses pass (the operator's endpoints). */
  readonly loopback: boolean;
  /** Canonical CIDR ranges that pass besides public unicast (`10.0.0.0/8`). */
  readonly networks: readonly string[];
  /** The daemon's own listeners: refused whatever else passes. */
  readonly ownListeners: readonly HostPort[];
  /**
   * Say so when the refused address is one of `ownListeners` (the operator's rule). Otherwise
   * (a key's) it reads like any other address the rule refuses: a key that could tell the
   * daemon's ports from other closed-off ones would find the admin, metrics and mod-link ports
   * by trying registrations.
   */
  readonly namesListeners?: boolean;
}

/** Raised inside `lookup` (and for IP literals): the connect never happens. */
export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(readonly address: string) {
    super(`${address} is not an address this webhook may reach`);
    this.name = 'BlockedAddressError';
  }
}

/**
 * IPv6 global unicast is 2000::/3 (RFC 4291 §2.4); outside it nothing is public. This also
 * refuses the deprecated IPv4-compatible form `::a.b.c.d`, which ipaddr.js calls unicast.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Null when `address` (a literal IP) may be reached on `port`; else why not. */
export function addressVerdict(address: string, port: number, rule: AddressRule): string | null {
  const parsed = parseAddress(address);
  if (parsed === null) return `${address} is not an IP address`;
  if (rule.ownListeners.some((listener) => isListener(parsed, port, listener))) {
    if (!rule.namesListeners) return notPublic(address, parsed);
    return `${address} port ${port} is one of this daemon's own listeners`;
  }
  if (isPublicUnicast(parsed)) return null;
  if (rule.loopback && parsed.range() === 'loopback') return null;
  if (rule.networks.some((cidr) => inNetwork(parsed, cidr))) return null;
  return notPublic(address, parsed);
}

function notPublic(address: string, parsed: Address): string {
  return `${address} is not a public address (${parsed.range()})`;
}

/** ipaddr.js's `range() === 'unicast'`, after unwrapping IPv4-mapped IPv6, and IPv6 in 2000::/3. */
export function isPublicUnicast(address: Address): boolean {
  if (address.range() !== 'unicast') return false;
  return address.kind() === 'ipv4' || address.match(GLOBAL_UNICAST_V6);
}

/** Null for a name (checked at lookup) or an allowed literal; else why the literal is refused. */
export function checkLiteral(hostname: string, port: number, rule: AddressRule): string | null {
  const host = unbracket(hostname);
  return isIP(host) === 0 ? null : addressVerdict(host, port, rule);
}

/**
 * The whole check, for registration: a literal directly, a name by resolving it and checking
 * every address. Null when allowed; else a sentence for the API's `details`. For a name the
 * sentence is the same whether it failed to resolve or resolved to a forbidden address, and
 * names no address: registration must not become a way to read the host's internal DNS.
 */
export async function checkTarget(
  url: URL,
  rule: AddressRule,
  resolve: Resolver,
  timeoutMs: number,
): Promise<string | null> {
  const port = portOf(url);
  const host = unbracket(url.hostname);
  if (isIP(host) !== 0) return addressVerdict(host, port, rule);
  const refused = `${host} does not resolve to reachable addresses only`;
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await withTimeout(resolve(host), timeoutMs);
  } catch {
    return refused;
  }
  if (addresses.length === 0) return refused;
  return addresses.every(({ address }) => addressVerdict(address, port, rule) === null) ? null : refused;
}

/**
 * A `lookup` for node:net that resolves once, refuses if any address is forbidden, and gives the
 * socket only the checked addresses (all of them with `all: true`, as happy eyeballs asks).
 */
export function guardedLookup(rule: AddressRule, port: number, resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const blocked = addresses.find(({ address }) => addressVerdict(address, port, rule) !== null);
        if (blocked) return callback(new BlockedAddressError(blocked.address), '', 0);
        const wanted = addresses.filter(({ family }) => !options.family || family === options.family);
        const first = wanted[0];
        if (!first) {
          const error = Object.assign(new Error(`${hostname} has no usable address`), { code: 'ENOTFOUND' });
          return callback(error, '', 0);
        }
        if (options.all) {
          return (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [...wanted]);
        }
        return callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

function parseAddress(text: string): Address | null {
  const host = unbracket(text);
  if (isIP(host) === 0) return null;
  const address = ipaddr.parse(host);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

/** A listener on the unspecified address (0.0.0.0, ::) answers on every address of the host. */
function isListener(address: Address, port: number, listener: HostPort): boolean {
  if (listener.port !== port) return false;
  if (listener.host === 'localhost') return address.range() === 'loopback';
  const host = parseAddress(listener.host);
  if (host === null) return false;
  if (host.range() === 'unspecified') return true;
  return host.kind() === address.kind() && host.toString() === address.toString();
}

function inNetwork(address: Address, cidr: string): boolean {
  const [network, prefix] = ipaddr.parseCIDR(cidr);
  return network.kind() === address.kind() && address.match(network, prefix);
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
