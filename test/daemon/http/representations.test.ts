import { describe, expect, it } from 'vitest';
import { type Representation, Representations } from '../../../daemon/http/representations.ts';
import { ROUTES } from '../../../daemon/routes/index.ts';

const [routeA, routeB] = ROUTES as [(typeof ROUTES)[number], (typeof ROUTES)[number]];

function counting() {
  let builds = 0;
  const build = (): Representation => {
    builds += 1;
    return { body: Buffer.from(`body ${builds}`), etag: null };
  };
  return { build, builds: () => builds };
}

describe('Representations', () => {
  it('builds the bytes of a frozen value once per route', () => {
    const reps = new Representations();
    const value = reps.freeze({ a: 1 });
    const { build, builds } = counting();
    const first = reps.represent(routeA, value, build);
    expect(reps.represent(routeA, value, build)).toBe(first);
    expect(builds()).toBe(1);
    expect(reps.represent(routeB, value, build)).not.toBe(first);
    expect(builds()).toBe(2);
  });

  it('builds the bytes of a value that was never frozen every time', () => {
    const reps = new Representations();
    const value = { a: 1 };
    const { build, builds } = counting();
    reps.represent(routeA, value, build);
    reps.represent(routeA, value, build);
    expect(builds()).toBe(2);
  });

  it('derives one frozen value per scope from a frozen source, and a fresh one from any other', () => {
    const reps = new Representations();
    const page = reps.freeze({ data: [1, 2], next: 'p2' });
    const forKey = (scope: string) => reps.derive(page, scope, () => ({ data: page.data, cursor: scope }));
    const a = forKey('key-a listPlayers');
    expect(forKey('key-a listPlayers')).toBe(a);
    expect(reps.isFrozen(a)).toBe(true);
    expect(forKey('key-b listPlayers')).toEqual({ data: [1, 2], cursor: 'key-b listPlayers' });
    expect(forKey('key-b listPlayers')).not.toBe(a);
    const loose = { data: [1], next: null };
    const derived = reps.derive(loose, 'key-a listPlayers', () => ({ copy: true }));
    expect(reps.derive(loose, 'key-a listPlayers', () => ({ copy: true }))).not.toBe(derived);
    expect(reps.isFrozen(derived)).toBe(false);
  });
});
