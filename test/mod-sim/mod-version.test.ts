import { describe, expect, it } from 'vitest';
import {
  MOD_FEATURES,
  ModVersionError,
  compareModVersions,
  featuresOf,
  hasFeature,
  parseModVersion,
} from '../../mod-sim/mod-version.ts';
import { createWorld, playerProfile } from '../../mod-sim/world/index.ts';

describe('parseModVersion', () => {
  it('reads one to four numeric parts and pads the rest with zeros', () => {
    expect(parseModVersion('2.0.47').parts).toEqual([2, 0, 47, 0]);
    expect(parseModVersion('2').parts).toEqual([2, 0, 0, 0]);
    expect(parseModVersion('2.0.47.3').parts).toEqual([2, 0, 47, 3]);
  });

  it('reads a pre-release tag', () => {
    expect(parseModVersion('2.1.0-beta.2').prerelease).toEqual(['beta', '2']);
  });

  it.each(['', 'v2.0.47', '2.0.47.1.2', '2..1', '2.0.x', '2.0.47-', ' 2.0.47', '2.0.47+build'])(
    'rejects %j with a clear error',
    (text) => {
      expect(() => parseModVersion(text)).toThrow(ModVersionError);
      expect(() => parseModVersion(text)).toThrow(/expected digits like '2.0.47'/);
    },
  );
});

describe('compareModVersions', () => {
  it.each([
    ['2.0.47', '2.0.46', 1],
    ['2.0.46', '2.0.47', -1],
    ['2.0.47', '2.0.47', 0],
    ['2.1', '2.1.0', 0],
    ['2.0.100', '2.0.47', 1],
    ['10.0.0', '9.9.9', 1],
    ['2.0.47.1', '2.0.47', 1],
    ['2.1.0-beta', '2.1.0', -1],
    ['2.1.0-beta.2', '2.1.0-beta.10', -1],
    ['2.1.0-alpha', '2.1.0-beta', -1],
    ['2.1.0-beta', '2.1.0-beta.1', -1],
    ['2.1.0-1', '2.1.0-alpha', -1],
    ['2.1.0-rc.1', '2.0.99', 1],
  ])('orders %s against %s as %i', (a, b, expected) => {
    expect(compareModVersions(a, b)).toBe(expected);
    expect(compareModVersions(b, a)).toBe(-expected || 0);
  });
});

describe('feature gates', () => {
  it('names the first version of each feature, marking our own decisions', () => {
    expect(MOD_FEATURES).toEqual({
      claimCodeDmQueue: { since: '2.0.47', decided: false },
      profileTotals: { since: '2.0.47', decided: false },
      commandHistoryActor: { since: '2.0.47', decided: false },
      statusPlayerCount: { since: '2.0.0', decided: true },
      coinsTargetOnline: { since: '2.0.30', decided: true },
      freePackGrants: { since: '2.0.40', decided: true },
    });
  });

  it.each(Object.entries(MOD_FEATURES))('turns %s on exactly at its first version', (name, { since }) => {
    const feature = name as keyof typeof MOD_FEATURES;
    const [major, minor, patch] = parseModVersion(since).parts;
    const before = patch > 0 ? `${major}.${minor}.${patch - 1}` : `${major - 1}.99.99`;
    expect(hasFeature(since, feature)).toBe(true);
    expect(hasFeature(`${since}.1`, feature)).toBe(true);
    expect(hasFeature(before, feature)).toBe(false);
    expect(hasFeature(`${since}-rc.1`, feature)).toBe(false);
  });

  it('resolves every feature for one version at once', () => {
    expect(featuresOf('2.0.35')).toEqual({
      claimCodeDmQueue: false,
      profileTotals: false,
      commandHistoryActor: false,
      statusPlayerCount: true,
      coinsTargetOnline: true,
      freePackGrants: false,
    });
    expect(Object.values(featuresOf('2.1.0')).every(Boolean)).toBe(true);
    expect(Object.values(featuresOf('1.9.0')).some(Boolean)).toBe(false);
  });

  it('nulls the profile totals in a world generated for a mod older than 2.0.47', () => {
    const old = createWorld({ players: 30, modVersion: '2.0.46' });
    const current = createWorld({ players: 30, modVersion: '2.0.47' });
    for (const player of old.players.list) {
      const stats = playerProfile(old, player).service_stats;
      expect([stats.total_kills, stats.total_deaths, stats.login_streak]).toEqual([null, null, null]);
    }
    for (const player of current.players.list) {
      const stats = playerProfile(current, player).service_stats;
      expect(stats.total_kills).toBeGreaterThanOrEqual(stats.kills);
      expect(stats.total_deaths).toBeGreaterThanOrEqual(stats.deaths);
      expect(Number.isInteger(stats.login_streak)).toBe(true);
    }
  });
});
