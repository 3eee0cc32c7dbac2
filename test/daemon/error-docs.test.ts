import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADMIN_ERROR_CATALOGUE, ERROR_CATALOGUE, ERROR_CODES } from '../../daemon/http/error-catalogue.ts';

const docs = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
// The spec's table of error codes, code by code. The spec is the contract and is not shipped
// with the repository (docs/errors.md is our statement of it), so its list is written out here: a new code in the spec is a new line.
const SPEC_CODES = [
  'validation_error',
  'unauthorized',
  'premium_required',
  'insufficient_scope',
  'ip_not_allowed',
  'not_found',
  'conflict',
  'idempotency_conflict',
  'precondition_failed',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal',
  'server_unavailable',
  'gateway_timeout',
];

describe('the error catalogue', () => {
  it.each(ERROR_CODES)('documents %s in docs/errors.md with its status', (code) => {
    const row = docs.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
    expect(row, code).toBeDefined();
    expect(row).toContain(String(ERROR_CATALOGUE[code].status));
  });

  it.each(Object.entries(ADMIN_ERROR_CATALOGUE))(
    'documents the admin API code %s in docs/errors.md with its status',
    (code, { status }) => {
      const row = docs.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
      expect(row, code).toBeDefined();
      expect(row).toContain(String(status));
    },
  );

  it('holds exactly the spec’s codes and no others', () => {
    expect([...ERROR_CODES].sort()).toEqual([...SPEC_CODES].sort());
  });
});
