import { describe, expect, it } from 'vitest';
import { ReadCache } from '../../../daemon/http/read-cache.ts';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('ReadCache', () => {
  it('answers repeated reads from one load within the window', async () => {
    let now = 0;
    const cache = new ReadCache({ now: () => now });
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('k', 1000, [], load)).toBe(1);
    now = 999;
    expect(await cache.get('k', 1000, [], load)).toBe(1);
    now = 1000;
    expect(await cache.get('k', 1000, [], load)).toBe(2);
    expect(loads).toBe(2);
  });

  it('shares one in-flight load between concurrent identical reads', async () => {
    const cache = new ReadCache();
    const gate = deferred<string>();
    let loads = 0;
    const load = () => (loads++, gate.promise);
    const reads = Array.from({ length: 50 }, () => cache.get('k', 1000, [], load));
    gate.resolve('v');
    expect(await Promise.all(reads)).toEqual(Array(50).fill('v'));
    expect(loads).toBe(1);
  });

  it('does not cache a failed load', async () => {
    const cache = new ReadCache();
    await expect(cache.get('k', 1000, [], () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('k', 1000, [], async () => 'up')).toBe('up');
  });

  it('drops tagged entries on invalidate so the next read loads again', async () => {
    const cache = new ReadCache();
    let loads = 0;
    await cache.get('a', 1000, ['players'], async () => ++loads);
    await cache.get('b', 1000, ['squads'], async () => 'squad');
    cache.invalidate(['players']);
    expect(await cache.get('a', 1000, ['players'], async () => ++loads)).toBe(2);
    expect(await cache.get('b', 1000, ['squads'], async () => 'reloaded')).toBe('squad');
  });

  it('does not store a result whose load started before an invalidation', async () => {
    const cache = new ReadCache();
    const gate = deferred<string>();
    const stale = cache.get('k', 1000, ['players'], () => gate.promise);
    cache.invalidate(['players']);
    const fresh = cache.get('k', 1000, ['players'], async () => 'after write');
    gate.resolve('before write');
    expect(await stale).toBe('before write');
    expect(await fresh).toBe('after write');
    expect(await cache.get('k', 1000, ['players'], async () => 'unused')).toBe('after write');
  });

  it('evicts the oldest entry past maxEntries', async () => {
    const cache = new ReadCache({ maxEntries: 2 });
    for (const key of ['a', 'b', 'c']) await cache.get(key, 1000, [], async () => key);
    expect(cache.size).toBe(2);
    expect(await cache.get('a', 1000, [], async () => 'reloaded')).toBe('reloaded');
  });
});
