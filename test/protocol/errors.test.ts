import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codeForCloseCode, PROTOCOL_ERRORS, ProtocolError, protocolError } from '../../protocol/errors.ts';

const doc = readFileSync(new URL('../../protocol/PROTOCOL.md', import.meta.url), 'utf8');

/** The rows of the close-code table in PROTOCOL §5.3: code → [close code, meaning]. */
function documentedCodes(): Map<string, { closeCode: number; meaning: string }> {
  const rows = new Map<string, { closeCode: number; meaning: string }>();
  for (const match of doc.matchAll(/^\| `([a-z0-9_]+)` \| (\d{4}) \| (.+) \|$/gm)) {
    rows.set(match[1] as string, { closeCode: Number(match[2]), meaning: match[3] as string });
  }
  return rows;
}

describe('the protocol error table', () => {
  it('gives every code a distinct close code between 4000 and 4999', () => {
    const closeCodes = Object.values(PROTOCOL_ERRORS).map((entry) => entry.closeCode);
    expect(new Set(closeCodes).size).toBe(closeCodes.length);
    for (const closeCode of closeCodes) {
      expect(closeCode).toBeGreaterThanOrEqual(4000);
      expect(closeCode).toBeLessThanOrEqual(4999);
    }
  });

  it('is listed in PROTOCOL.md with the same close code and meaning for every code', () => {
    const documented = documentedCodes();
    for (const [code, entry] of Object.entries(PROTOCOL_ERRORS)) {
      expect(documented.get(code), `PROTOCOL.md §5.3 lacks ${code}`).toEqual({
        closeCode: entry.closeCode,
        meaning: entry.meaning,
      });
    }
  });

  it('documents no code the implementation lacks', () => {
    expect([...documentedCodes().keys()].sort()).toEqual(Object.keys(PROTOCOL_ERRORS).sort());
  });

  it('includes the codes the protocol brief names', () => {
    for (const code of [
      'frame_too_large',
      'depth_exceeded',
      'malformed',
      'forbidden_key',
      'bad_mac',
      'sequence',
    ]) {
      expect(code in PROTOCOL_ERRORS).toBe(true);
    }
    for (const code of ['handshake_timeout', 'unknown_identity', 'bad_signature', 'unsupported_version']) {
      expect(code in PROTOCOL_ERRORS).toBe(true);
    }
    for (const code of ['heartbeat_timeout', 'unexpected_frame', 'superseded', 'shutdown']) {
      expect(code in PROTOCOL_ERRORS).toBe(true);
    }
  });
});

describe('ProtocolError', () => {
  it('carries its code, close code, a default message and the code as close reason', () => {
    const error = protocolError('sequence');
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.code).toBe('sequence');
    expect(error.closeCode).toBe(4041);
    expect(error.message).toBe(PROTOCOL_ERRORS.sequence.meaning);
    expect(error.closeReason).toBe('sequence');
    expect(Buffer.byteLength(error.closeReason)).toBeLessThanOrEqual(123);
  });

  it('maps a close code back to its code', () => {
    expect(codeForCloseCode(4040)).toBe('bad_mac');
    expect(codeForCloseCode(1000)).toBeUndefined();
  });
});
