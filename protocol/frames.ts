/**
 * Session frame bodies (PROTOCOL §4.4) and the batch that carries them (§4.2): the plaintext of
 * every frame after the handshake is an array of 1 to `MAX_FRAME_BODIES` bodies. Each `t` may
 * come from one side only; anything else is `unexpected_frame`, a known `t` with a missing or
 * mistyped field is `invalid_message`. Unknown extra fields are ignored (§7).
 */
import { fail, ProtocolError, type Outcome } from './errors.ts';

export type Role = 'daemon' | 'mod';

export interface ReadyFrame {
  t: 'ready';
  /**
   * PROTOCOL §9.1: the daemon stores game events; the mod may send `events` bodies. A bool on the
   * wire: `false`, nil and absent all mean no events on this session (parsed as absent).
   */
  events?: true;
}
export interface PingFrame {
  t: 'ping' | 'pong';
  n: number;
}
export interface ReqFrame {
  t: 'req';
  id: number;
  op: string;
  args: Record<string, unknown>;
  deadline_ms: number;
  op_id?: string;
}
export interface RemoteOpError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}
export type ResFrame =
  | { t: 'res'; id: number; ok: true; result: unknown }
  | { t: 'res'; id: number; ok: false; error: RemoteOpError };
/** PROTOCOL §6.5: the mod committed the change of request `id`; its result may follow later. */
export interface AppliedFrame {
  t: 'applied';
  id: number;
}
/** PROTOCOL §9.2: one game event as the mod reports it, numbered in its stream. */
export interface ModEvent {
  seq: number;
  type: string;
  at: string;
  data: Record<string, unknown>;
}
/** PROTOCOL §9.2: game events from one mod stream, in sequence order. */
export interface EventsFrame {
  t: 'events';
  stream: string;
  events: ModEvent[];
}
/**
 * Why the daemon refused an event (PROTOCOL §9.5). A refused event is covered by the ack like a
 * stored one: the mod forgets it and never sends it again.
 */
export const EVENT_REFUSALS = [
  'unknown_type',
  'reserved_type',
  'invalid_at',
  'invalid_data',
  'event_too_large',
  'batch_too_large',
  'rate_limited',
] as const;
export type EventRefusalReason = (typeof EVENT_REFUSALS)[number];
/** PROTOCOL §9.5: one refused event of an acknowledged body. */
export interface EventRefusal {
  seq: number;
  reason: string;
}
/**
 * PROTOCOL §9.3: every event of `stream` up to `seq` is handled: durably stored, or refused and
 * listed in `refused` (§9.5, optional, absent when none was).
 */
export interface EventsAckFrame {
  t: 'events_ack';
  stream: string;
  seq: number;
  refused?: EventRefusal[];
}
export type FrameBody =
  ReadyFrame | PingFrame | ReqFrame | ResFrame | AppliedFrame | EventsFrame | EventsAckFrame;

/** The most bodies one session frame may carry; every receiver accepts 1 to this many (PROTOCOL §4.2). */
export const MAX_FRAME_BODIES = 256;

/** Which `t` each side may send (PROTOCOL §4.4). */
const SENT_BY: Record<Role, ReadonlySet<string>> = {
  daemon: new Set(['ready', 'ping', 'pong', 'req', 'events_ack']),
  mod: new Set(['ping', 'pong', 'res', 'applied', 'events']),
};
const ALL_TYPES = new Set(['ready', 'ping', 'pong', 'req', 'res', 'applied', 'events', 'events_ack']);

export function isUint32(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffffffff;
}

/** The integer fields of frame bodies and handshake messages (PROTOCOL §2.1). */
const INTEGER_FIELDS: ReadonlySet<string> = new Set(['id', 'n', 'deadline_ms', 'version', 'seq']);

/**
 * PROTOCOL §2.1: the integer fields of a message are msgpack ints; an integral float there is
 * `invalid_message`. `floats` holds the paths the codec saw floats at (`FloatPaths`); such a
 * field is replaced by NaN, which every integer check refuses, before the message is parsed.
 */
export function withoutFloats(
  value: Record<string, unknown>,
  floats: ReadonlySet<string> | undefined,
  prefix = '',
): Record<string, unknown> {
  if (floats === undefined || floats.size === 0) return value;
  let copy: Record<string, unknown> | null = null;
  for (const key of INTEGER_FIELDS) {
    if (!floats.has(prefix + key)) continue;
    copy ??= { ...value };
    copy[key] = Number.NaN;
  }
  return copy ?? value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}

/**
 * Checks a decoded plaintext is a batch (PROTOCOL §4.2 rule 1): an array of 1 to
 * `MAX_FRAME_BODIES` entries, each a frame body that `sender` may send. All or nothing: the first
 * bad body rejects the whole frame with its own code, and the message says which body it was.
 */
export function parseFrameBatch(
  value: unknown,
  sender: Role,
  floats?: ReadonlySet<string>,
): Outcome<FrameBody[]> {
  if (!Array.isArray(value)) {
    return fail('invalid_batch', `a session frame holds an array of frame bodies, not ${kindOf(value)}`);
  }
  const count = value.length;
  if (count === 0) return fail('invalid_batch', 'a session frame holds at least one frame body');
  if (count > MAX_FRAME_BODIES) {
    return fail('invalid_batch', `a session frame holds at most ${MAX_FRAME_BODIES} bodies, got ${count}`);
  }
  const bodies: FrameBody[] = [];
  for (let i = 0; i < count; i += 1) {
    const body: unknown = value[i];
    const parsed = parseFrameBody(isPlainObject(body) ? withoutFloatFields(body, floats, i) : body, sender);
    if (!parsed.ok) {
      const where = count === 1 ? '' : `body ${i + 1} of ${count}: `;
      return { ok: false, error: new ProtocolError(parsed.error.code, where + parsed.error.message) };
    }
    bodies.push(parsed.value);
  }
  return { ok: true, value: bodies };
}

/** `withoutFloats` for body `index` of a batch, and for the `seq` of each of its events (§9.2). */
function withoutFloatFields(
  body: Record<string, unknown>,
  floats: ReadonlySet<string> | undefined,
  index: number,
): Record<string, unknown> {
  const fields = withoutFloats(body, floats, `${index}/`);
  const events = fields['events'];
  if (floats === undefined || !Array.isArray(events)) return fields;
  const prefix = `${index}/events/`;
  if (![...floats].some((path) => path.startsWith(prefix))) return fields;
  const checked = events.map((event: unknown, k) =>
    isPlainObject(event) ? withoutFloats(event, floats, `${prefix}${k}/`) : event,
  );
  return { ...fields, events: checked };
}

function kindOf(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (value instanceof Uint8Array) return 'a bin';
  return isPlainObject(value) ? 'a map (a bare body)' : `a ${typeof value}`;
}

/** Checks a decoded value is a frame body that `sender` may send (PROTOCOL §4.4). */
export function parseFrameBody(value: unknown, sender: Role): Outcome<FrameBody> {
  if (!isPlainObject(value)) return fail('invalid_message', 'a frame body must be a map');
  const t = value['t'];
  if (typeof t !== 'string') return fail('invalid_message', 'a frame body needs a str field t');
  if (!ALL_TYPES.has(t)) return fail('unexpected_frame', `unknown frame type "${t.slice(0, 32)}"`);
  if (!SENT_BY[sender].has(t)) return fail('unexpected_frame', `a ${sender} may not send "${t}"`);
  switch (t) {
    case 'ready':
      return parseReady(value['events']);
    case 'ping':
    case 'pong':
      return isUint32(value['n'])
        ? { ok: true, value: { t, n: value['n'] } }
        : fail('invalid_message', `${t}.n must be a u32`);
    case 'req':
      return parseReq(value);
    case 'applied':
      return isUint32(value['id'])
        ? { ok: true, value: { t, id: value['id'] } }
        : fail('invalid_message', 'applied.id must be a u32');
    case 'events':
      return parseEvents(value);
    case 'events_ack':
      return parseEventsAck(value);
    default:
      return parseRes(value);
  }
}

/** PROTOCOL §9.1: `events` is a bool; false and nil mean the same as absent, anything else is mistyped. */
function parseReady(events: unknown): Outcome<FrameBody> {
  if (events === true) return { ok: true, value: { t: 'ready', events: true } };
  if (events === false || events === null || events === undefined) return { ok: true, value: { t: 'ready' } };
  return fail('invalid_message', 'ready.events must be a bool when present');
}

function parseReq(value: Record<string, unknown>): Outcome<FrameBody> {
  const { id, op, args, deadline_ms, op_id } = value;
  if (!isUint32(id)) return fail('invalid_message', 'req.id must be a u32');
  if (typeof op !== 'string') return fail('invalid_message', 'req.op must be a str');
  if (!isPlainObject(args)) return fail('invalid_message', 'req.args must be a map');
  if (!isUint32(deadline_ms)) return fail('invalid_message', 'req.deadline_ms must be a u32');
  if (op_id !== undefined && op_id !== null && typeof op_id !== 'string') {
    return fail('invalid_message', 'req.op_id must be a str when present');
  }
  const frame: ReqFrame = { t: 'req', id, op, args, deadline_ms };
  if (typeof op_id === 'string') frame.op_id = op_id;
  return { ok: true, value: frame };
}

function parseRes(value: Record<string, unknown>): Outcome<FrameBody> {
  const { id, ok } = value;
  if (!isUint32(id)) return fail('invalid_message', 'res.id must be a u32');
  if (ok === true) {
    if (!('result' in value)) return fail('invalid_message', 'res.result is missing');
    return { ok: true, value: { t: 'res', id, ok, result: value['result'] } };
  }
  if (ok !== false) return fail('invalid_message', 'res.ok must be a bool');
  const error = value['error'];
  if (!isPlainObject(error) || typeof error['code'] !== 'string' || typeof error['message'] !== 'string') {
    return fail('invalid_message', 'res.error must be a map with str code and message');
  }
  const details = error['details'];
  if (details !== undefined && details !== null && !isPlainObject(details)) {
    return fail('invalid_message', 'res.error.details must be a map when present');
  }
  const remote: RemoteOpError = { code: error['code'], message: error['message'] };
  if (isPlainObject(details)) remote.details = details;
  return { ok: true, value: { t: 'res', id, ok, error: remote } };
}

/** PROTOCOL §9.2: a stream id is 1 to 64 bytes of str; events hold 1 to `MAX_EVENTS_PER_BODY`. */
export const MAX_EVENTS_PER_BODY = 1024;
const MAX_STREAM_BYTES = 64;

function isStreamId(value: unknown): value is string {
  // Bytes of UTF-8, as every length on the wire (PROTOCOL §10), not UTF-16 code units.
  return typeof value === 'string' && value.length >= 1 && Buffer.byteLength(value) <= MAX_STREAM_BYTES;
}

function parseEvents(value: Record<string, unknown>): Outcome<FrameBody> {
  const { stream, events } = value;
  if (!isStreamId(stream)) return fail('invalid_message', 'events.stream must be a str of 1 to 64 bytes');
  if (!Array.isArray(events) || events.length === 0 || events.length > MAX_EVENTS_PER_BODY) {
    return fail('invalid_message', `events.events must be an array of 1 to ${MAX_EVENTS_PER_BODY} events`);
  }
  const parsed: ModEvent[] = [];
  let previous = 0;
  for (const [index, event] of events.entries()) {
    const where = `events.events[${index}]`;
    if (!isPlainObject(event)) return fail('invalid_message', `${where} must be a map`);
    const { seq, type, at, data } = event;
    if (!isUint32(seq) || seq === 0) return fail('invalid_message', `${where}.seq must be a u32 above 0`);
    if (seq <= previous) return fail('invalid_message', `${where}.seq must be above the one before it`);
    if (typeof type !== 'string') return fail('invalid_message', `${where}.type must be a str`);
    if (typeof at !== 'string') return fail('invalid_message', `${where}.at must be a str`);
    if (!isPlainObject(data)) return fail('invalid_message', `${where}.data must be a map`);
    parsed.push({ seq, type, at, data });
    previous = seq;
  }
  return { ok: true, value: { t: 'events', stream, events: parsed } };
}

function parseEventsAck(value: Record<string, unknown>): Outcome<FrameBody> {
  const { stream, seq, refused } = value;
  if (!isStreamId(stream)) return fail('invalid_message', 'events_ack.stream must be a str of 1 to 64 bytes');
  if (!isUint32(seq)) return fail('invalid_message', 'events_ack.seq must be a u32');
  if (refused === undefined || refused === null) return { ok: true, value: { t: 'events_ack', stream, seq } };
  const list = parseRefusals(refused);
  if (list === null) {
    return fail(
      'invalid_message',
      `events_ack.refused must be an array of up to ${MAX_EVENTS_PER_BODY} {seq, reason}`,
    );
  }
  return { ok: true, value: { t: 'events_ack', stream, seq, refused: list } };
}

/** PROTOCOL §9.5: `refused` lists {seq u32, reason str}; a reason this side does not know is kept. */
function parseRefusals(value: unknown): EventRefusal[] | null {
  if (!Array.isArray(value) || value.length > MAX_EVENTS_PER_BODY) return null;
  const list: EventRefusal[] = [];
  for (const entry of value) {
    if (!isPlainObject(entry)) return null;
    const { seq, reason } = entry;
    if (!isUint32(seq) || typeof reason !== 'string') return null;
    list.push({ seq, reason });
  }
  return list;
}
