/**
 * Every way the mod link can fail, in one table (PROTOCOL §5.3). A rejection never throws out of
 * the protocol layer: it becomes a `ProtocolError` with a stable code and the WebSocket close code
 * (4000–4999) the link is closed with. `PROTOCOL.md` lists the same table; a test keeps them equal.
 */

export const PROTOCOL_ERRORS = {
  // Deliberate closes.
  shutdown: { closeCode: 4000, meaning: 'the peer is going away on purpose (daemon stop, bridge close)' },
  superseded: { closeCode: 4001, meaning: 'a newer authenticated mod replaced this link' },
  too_many_connections: {
    closeCode: 4002,
    meaning: 'the daemon already has its maximum of pending handshakes',
  },
  // Codec (PROTOCOL §2).
  malformed: {
    closeCode: 4010,
    meaning:
      'not exactly one well-formed msgpack value (truncated, trailing bytes, byte 0xc1, text message, frame under 25 bytes)',
  },
  frame_too_large: { closeCode: 4011, meaning: 'the message is longer than the byte limit' },
  depth_exceeded: { closeCode: 4012, meaning: 'arrays and maps nest deeper than the depth limit' },
  string_too_long: { closeCode: 4013, meaning: 'a str or bin is longer than its limit' },
  collection_too_large: { closeCode: 4014, meaning: 'an array or map has more entries than the limit' },
  too_many_elements: { closeCode: 4015, meaning: 'the message holds more values in total than the limit' },
  unsupported_type: { closeCode: 4016, meaning: 'an ext type (including the timestamp ext) was used' },
  non_string_key: { closeCode: 4017, meaning: 'a map key is not a str' },
  forbidden_key: { closeCode: 4018, meaning: 'a map key is `__proto__`, `constructor` or `prototype`' },
  integer_out_of_range: {
    closeCode: 4019,
    meaning: 'an int64/uint64 lies outside ±(2^53−1); large ids travel as strings',
  },
  invalid_message: {
    closeCode: 4020,
    meaning: 'well-formed msgpack that is not a valid protocol message (a field missing or mistyped)',
  },
  unexpected_frame: {
    closeCode: 4021,
    meaning: 'an unknown `t`, or a `t` not allowed from this peer or in this state',
  },
  invalid_batch: {
    closeCode: 4022,
    meaning:
      'a session frame whose plaintext is not an array of 1 to 256 frame bodies (empty, a bare map, any other value)',
  },
  // Codec (PROTOCOL §2.4, §2.6), numbered after the message codes they were added after.
  duplicate_key: { closeCode: 4023, meaning: 'a map holds the same key twice' },
  invalid_utf8: {
    closeCode: 4024,
    meaning: 'a str is not valid UTF-8 (a surrogate, an overlong form, a cut sequence)',
  },
  // Handshake (PROTOCOL §3).
  unsupported_version: { closeCode: 4030, meaning: 'the peers share no protocol version' },
  unknown_identity: {
    closeCode: 4031,
    meaning:
      'the mod key is not trusted, or the daemon key is not the pinned one; also sent by the daemon on an authenticated link whose mod key the operator has since removed',
  },
  bad_signature: { closeCode: 4032, meaning: 'a handshake signature does not verify over the transcript' },
  handshake_timeout: { closeCode: 4033, meaning: 'the handshake did not finish within its deadline' },
  // Session (PROTOCOL §4, §5).
  bad_mac: {
    closeCode: 4040,
    meaning: 'the AEAD tag does not verify (forged, corrupted, reflected, or from another session)',
  },
  sequence: { closeCode: 4041, meaning: 'a sequence number was repeated, skipped or reordered' },
  heartbeat_timeout: {
    closeCode: 4042,
    meaning: 'no authenticated frame arrived within the heartbeat timeout',
  },
  internal_error: { closeCode: 4050, meaning: 'a local fault; the link closes rather than continue' },
} as const satisfies Record<string, { closeCode: number; meaning: string }>;

export type ProtocolErrorCode = keyof typeof PROTOCOL_ERRORS;

export class ProtocolError extends Error {
  readonly closeCode: number;

  constructor(
    readonly code: ProtocolErrorCode,
    message: string = PROTOCOL_ERRORS[code].meaning,
  ) {
    super(message);
    this.name = 'ProtocolError';
    this.closeCode = PROTOCOL_ERRORS[code].closeCode;
  }

  /** The WebSocket close reason: the stable code, always well under the 123-byte cap. */
  get closeReason(): string {
    return this.code;
  }
}

export function protocolError(code: ProtocolErrorCode, message?: string): ProtocolError {
  return new ProtocolError(code, message);
}

/** The result shape of every pure step that can reject its input. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ProtocolError };

export function fail(code: ProtocolErrorCode, message?: string): { ok: false; error: ProtocolError } {
  return { ok: false, error: new ProtocolError(code, message) };
}

const BY_CLOSE_CODE = new Map<number, ProtocolErrorCode>(
  Object.entries(PROTOCOL_ERRORS).map(([code, entry]) => [entry.closeCode, code as ProtocolErrorCode]),
);

/** Maps a close code a peer sent back to our code, for logs; undefined outside the table. */
export function codeForCloseCode(closeCode: number): ProtocolErrorCode | undefined {
  return BY_CLOSE_CODE.get(closeCode);
}
