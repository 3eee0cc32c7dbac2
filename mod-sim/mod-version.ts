/**
 * Mod versions and the features they gate (spec, Versioning 4). A world generated for an older
 * mod reflects it: profile totals are null, claim codes report `unknown` delivery, command
 * history has no actor, and so on.
 *
 * Versions are dotted numbers, `2.0.47`, with one to four parts (missing parts count as 0, so
 * `2.1` equals `2.1.0`) and an optional pre-release tag (`2.1.0-beta.2`), which sorts before the
 * release it precedes, as in SemVer.
 */

export interface ModVersion {
  /** Numeric parts, padded to four. */
  readonly parts: readonly [number, number, number, number];
  /** Dot-separated pre-release identifiers; empty for a release. */
  readonly prerelease: readonly string[];
  /** The text it was parsed from. */
  readonly text: string;
}

export class ModVersionError extends Error {
  constructor(text: string) {
    super(`invalid mod version '${text}': expected digits like '2.0.47' (optionally '-beta.1')`);
    this.name = 'ModVersionError';
  }
}

const VERSION = /^(\d{1,9})(?:\.(\d{1,9})){0,3}(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

export function parseModVersion(text: string): ModVersion {
  if (!VERSION.test(text)) throw new ModVersionError(text);
  const [core = '', tag] = splitOnce(text, '-');
  const numbers = core.split('.').map(Number);
  while (numbers.length < 4) numbers.push(0);
  const [major = 0, minor = 0, patch = 0, build = 0] = numbers;
  return {
    parts: [major, minor, patch, build],
    prerelease: tag === undefined ? [] : tag.split('.'),
    text,
  };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** Negative when a < b, 0 when equal in precedence, positive when a > b. */
export function compareModVersions(a: string | ModVersion, b: string | ModVersion): number {
  const left = typeof a === 'string' ? parseModVersion(a) : a;
  const right = typeof b === 'string' ? parseModVersion(b) : b;
  for (let i = 0; i < 4; i++) {
    const diff = (left.parts[i] ?? 0) - (right.parts[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  return comparePrerelease(left.prerelease, right.prerelease);
}

/** SemVer §11: a release outranks its pre-releases; identifiers compare numerically or as text. */
function comparePrerelease(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return Math.sign(b.length - a.length);
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x === y) continue;
    const xNum = /^\d+$/.test(x);
    const yNum = /^\d+$/.test(y);
    if (xNum && yNum) return Math.sign(Number(x) - Number(y));
    if (xNum !== yNum) return xNum ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return Math.sign(a.length - b.length);
}

/**
 * Each gated feature and the first mod version that has it. `decided: true` marks a minimum the
 * spec leaves open ("not shown") and this project chose; docs and tests name them as decisions.
 */
export const MOD_FEATURES = {
  /** Claim-code direct messages are queued; older mods report delivery_status `unknown`. */
  claimCodeDmQueue: { since: '2.0.47', decided: false },
  /** Profile totals total_kills, total_deaths, login_streak; null before. */
  profileTotals: { since: '2.0.47', decided: false },
  /** Command history `actor`; null on entries written before. */
  commandHistoryActor: { since: '2.0.47', decided: false },
  /** server.status reports player_count; null before. */
  statusPlayerCount: { since: '2.0.0', decided: true },
  /** Bulk coins with `target: online`; 404 before, never applied to everyone. */
  coinsTargetOnline: { since: '2.0.30', decided: true },
  /** Free pack grants (POST /v1/packs/{id}/deliver); 409 conflict before. */
  freePackGrants: { since: '2.0.40', decided: true },
} as const satisfies Record<string, { since: string; decided: boolean }>;

export type ModFeature = keyof typeof MOD_FEATURES;

/** True when mod `version` has `feature`. */
export function hasFeature(version: string | ModVersion, feature: ModFeature): boolean {
  return compareModVersions(version, MOD_FEATURES[feature].since) >= 0;
}

/** Every feature resolved for one version, for code that checks several. */
export type FeatureSet = Readonly<Record<ModFeature, boolean>>;

export function featuresOf(version: string | ModVersion): FeatureSet {
  const parsed = typeof version === 'string' ? parseModVersion(version) : version;
  const entries = (Object.keys(MOD_FEATURES) as ModFeature[]).map((name) => [name, hasFeature(parsed, name)]);
  return Object.freeze(Object.fromEntries(entries) as Record<ModFeature, boolean>);
}

/** The version a world gets when none is asked for. */
export const DEFAULT_MOD_VERSION = '2.1.0';
