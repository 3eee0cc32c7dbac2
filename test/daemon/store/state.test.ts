import { describe, expect, it } from 'vitest';
import { hasFeature, INITIAL_STATE, isPremiumActive, type Plan } from '../../../daemon/store/state.ts';

const now = new Date('2030-06-01T12:00:00Z');

function plan(overrides: Partial<Plan>): Plan {
  return { premium: true, until: null, features: [], ...overrides };
}

describe('isPremiumActive', () => {
  it('is false on a new data dir', () => {
    expect(isPremiumActive(INITIAL_STATE.plan, now)).toBe(false);
  });

  it('is true for premium without an end date', () => {
    expect(isPremiumActive(plan({}), now)).toBe(true);
  });

  it('is true before the end date and false from the end date on', () => {
    expect(isPremiumActive(plan({ until: new Date('2030-06-01T12:00:01Z') }), now)).toBe(true);
    expect(isPremiumActive(plan({ until: now }), now)).toBe(false);
    expect(isPremiumActive(plan({ until: new Date('2030-01-01T00:00:00Z') }), now)).toBe(false);
  });

  it('is false when premium is off, whatever the end date', () => {
    expect(isPremiumActive(plan({ premium: false, until: new Date('2031-01-01T00:00:00Z') }), now)).toBe(
      false,
    );
  });
});

describe('hasFeature', () => {
  it('needs both an active plan and the feature', () => {
    expect(hasFeature(plan({ features: ['shop'] }), 'shop', now)).toBe(true);
    expect(hasFeature(plan({ features: [] }), 'shop', now)).toBe(false);
    expect(hasFeature(plan({ premium: false, features: ['shop'] }), 'shop', now)).toBe(false);
    expect(hasFeature(plan({ until: now, features: ['shop'] }), 'shop', now)).toBe(false);
  });
});
