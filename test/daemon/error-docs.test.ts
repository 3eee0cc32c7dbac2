import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, ERROR_CODES } from '../../daemon/http/error-catalogue.ts';

const docs = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const spec = readFileSync(new URL('../../../shared/spec/api-v1.md', import.meta.url), 'utf8');

describe('the error catalogue', () => {
  it.each(ERROR_CODES)('documents %s in docs/errors.md with its status', (code) => {
    const row = docs.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
    expect(row, code).toBeDefined();
    expect(row).toContain(String(ERROR_CATALOGUE[code].status));
  });

  it('holds exactly the spec’s codes and no others', () => {
    const section = spec.slice(spec.indexOf('## Errors'), spec.indexOf('A 304 Not Modified'));
    const specCodes = [...section.matchAll(/^\| ([a-z_]+) \| /gm)]
      .map((m) => m[1])
      .filter((c) => c !== 'code');
    expect([...ERROR_CODES].sort()).toEqual(specCodes.sort());
  });
});
