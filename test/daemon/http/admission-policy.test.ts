import { describe, expect, it } from 'vitest';
import { chooseVictim, type ConnectionActivity } from '../../../daemon/http/admission-policy.ts';

interface Fake {
  name: string;
  activity(): ConnectionActivity;
}

/** Holders from a compact description: address → activities, oldest first. */
function holders(spec: Record<string, ConnectionActivity[]>): Map<string, Set<Fake>> {
  return new Map(
    Object.entries(spec).map(([subject, activities]) => [
      subject,
      new Set(activities.map((activity, i) => ({ name: `${subject}#${i}`, activity: () => activity }))),
    ]),
  );
}

describe('chooseVictim', () => {
  it('takes the oldest silent connection of the address holding the most', () => {
    const victim = chooseVictim(
      holders({ a: ['busy', 'silent', 'silent'], b: ['busy', 'silent', 'silent', 'idle', 'silent'] }),
      'newcomer',
    );
    expect(victim?.name).toBe('b#1');
  });

  it('takes the oldest idle keep-alive connection when that address has no silent one', () => {
    const victim = chooseVictim(holders({ a: ['busy', 'idle', 'busy', 'idle'] }), 'newcomer');
    expect(victim?.name).toBe('a#1');
  });

  it('prefers a silent connection to an older idle one', () => {
    const victim = chooseVictim(holders({ a: ['idle', 'busy', 'silent'] }), 'newcomer');
    expect(victim?.name).toBe('a#2');
  });

  it('never cuts a connection with a request in flight, and looks at the next richest address', () => {
    const victim = chooseVictim(holders({ a: ['busy', 'busy', 'busy', 'busy'], b: ['busy', 'silent'] }), 'c');
    expect(victim?.name).toBe('b#1');
  });

  it('refuses a newcomer from the address holding the most: a flooder never makes room for itself', () => {
    expect(chooseVictim(holders({ a: ['silent', 'silent', 'silent'], b: ['silent'] }), 'a')).toBeNull();
  });

  it('evicts only from an address that keeps at least as many as the newcomer then holds', () => {
    // b holds 2, a would hold 2 after admission and b 1: they would trade places for ever.
    expect(chooseVictim(holders({ a: ['busy'], b: ['silent', 'silent'] }), 'a')).toBeNull();
    expect(chooseVictim(holders({ a: ['busy'], b: ['silent', 'silent', 'silent'] }), 'a')?.name).toBe('b#0');
  });

  it('refuses when every connection is busy', () => {
    expect(chooseVictim(holders({ a: ['busy', 'busy'], b: ['busy', 'busy'] }), 'c')).toBeNull();
  });

  it('takes the oldest connection still sending its request head when none is silent or idle', () => {
    const victim = chooseVictim(holders({ a: ['busy', 'head', 'busy', 'head'] }), 'newcomer');
    expect(victim?.name).toBe('a#1');
  });

  it('takes a head from the richest address, not an older one from a poorer address', () => {
    const victim = chooseVictim(
      holders({ a: ['head', 'head', 'head'], b: ['busy', 'head', 'head', 'head', 'head'] }),
      'newcomer',
    );
    expect(victim?.name).toBe('b#1');
  });

  it('prefers a silent or idle connection of any richer address to a head', () => {
    const spec: Record<string, ConnectionActivity[]> = { a: ['head', 'head', 'head', 'head'] };
    expect(chooseVictim(holders({ ...spec, b: ['head', 'head', 'silent'] }), 'c')?.name).toBe('b#2');
    expect(chooseVictim(holders({ ...spec, b: ['head', 'idle', 'head'] }), 'c')?.name).toBe('b#1');
    expect(chooseVictim(holders({ ...spec, b: ['head', 'busy'] }), 'c')?.name).toBe('a#0');
  });

  it('never makes room for an address out of its own stalled heads', () => {
    expect(
      chooseVictim(holders({ proxy: ['head', 'head', 'head', 'head'], b: ['busy'] }), 'proxy'),
    ).toBeNull();
  });

  it('takes a head only from an address that keeps at least as many as the newcomer then holds', () => {
    expect(chooseVictim(holders({ a: ['busy'], b: ['head', 'head'] }), 'a')).toBeNull();
    expect(chooseVictim(holders({ a: ['busy'], b: ['head', 'head', 'head'] }), 'a')?.name).toBe('b#0');
  });

  it('takes a stalled head from a trusted proxy holding every slot, never its requests in flight', () => {
    const proxy: ConnectionActivity[] = ['busy', 'busy', 'head', 'busy', 'head'];
    expect(chooseVictim(holders({ proxy }), 'client')?.name).toBe('proxy#2');
    expect(chooseVictim(holders({ proxy: ['busy', 'busy', 'busy'] }), 'client')).toBeNull();
  });
});
