/**
 * The panel's scope descriptions and presets (panel/scopes.ts) name exactly the daemon's scopes,
 * so a scope added to the daemon cannot reach the key form undescribed.
 */
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../daemon/scopes.ts';
import { SCOPE_HELP, SCOPE_PRESETS } from '../../panel/scopes.ts';

describe('the key form’s scope vocabulary', () => {
  it('describes every scope the daemon has, and no other', () => {
    expect(Object.keys(SCOPE_HELP)).toEqual([...SCOPES]);
  });

  it('builds every preset from scopes the daemon has', () => {
    for (const preset of SCOPE_PRESETS) {
      expect(preset.scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope))).toEqual([]);
    }
  });
});
