/**
 * The `event_refusals` section of the golden vectors (PROTOCOL §8.4, §9.5): for each rule that
 * refuses an event, one `events` body and the `events_ack` the reference daemon answers, with
 * the limits it ran under. Built by running the daemon's own checks (event-checks.ts), so the
 * vectors cannot drift from the code; `scripts/gen-vectors.ts` writes them into golden.json
 * beside the protocol layer's sections, and test/daemon/events/refusal-vectors.test.ts checks
 * the file against this. Sizes sit exactly at and one byte past each limit, so a mod author can
 * check they count msgpack bytes the way the daemon does.
 */
import { encode } from '../../protocol/codec.ts';
import type { ModEvent } from '../../protocol/frames.ts';
import { checkEvents } from './event-checks.ts';
import { EventRateLimit, encodedEventBytes, resolveEventLimits, type EventLimits } from './event-limits.ts';

const STREAM = 'golden-stream';
const AT = '2025-06-01T12:00:00.000Z';

interface RefusalCase {
  name: string;
  limits?: Partial<EventLimits>;
  events: ModEvent[];
}

function command(seq: number, result = '', extra: Partial<ModEvent> = {}): ModEvent {
  const data = { at: '2025-06-01 12:00:00.000', command: '#Online', result, actor: null };
  return { seq, type: 'command.executed', at: AT, data, ...extra };
}

/** A command.executed event whose msgpack is exactly `bytes` long (its `result` padded). */
function sized(seq: number, bytes: number): ModEvent {
  for (let pad = Math.max(0, bytes - 200); pad <= bytes; pad += 1) {
    const event = command(seq, 'x'.repeat(pad));
    if (encodedEventBytes(event) === bytes) return event;
  }
  throw new Error(`vector: no event of exactly ${bytes} bytes`);
}

function cases(): RefusalCase[] {
  return [
    {
      name: 'an event of a type the daemon does not know',
      events: [command(1, '', { type: 'player.teleported' })],
    },
    {
      name: "the daemon's own types, mod.connected and mod.disconnected",
      events: [
        { seq: 1, type: 'mod.connected', at: AT, data: { mod_version: '2.0.47', protocol_version: 1 } },
        { seq: 2, type: 'mod.disconnected', at: AT, data: { code: 1000, reason: 'bye' } },
      ],
    },
    {
      name: 'at that is not an ISO 8601 instant with an offset, or a day that does not exist',
      events: [
        command(1, '', { at: 'yesterday' }),
        command(2, '', { at: '2025-06-01 12:00:00' }),
        command(3, '', { at: '2025-02-30T12:00:00Z' }),
        command(4, '', { at: '2025-06-01T14:00:00+02:00' }),
      ],
    },
    {
      name: 'data that does not fit the type (a player.banned without player and ban)',
      events: [{ seq: 1, type: 'player.banned', at: AT, data: {} }],
    },
    {
      name: 'an event exactly at maxEventBytes, then one byte over',
      limits: { maxEventBytes: 256 },
      events: [sized(1, 256), sized(2, 257)],
    },
    {
      name: 'a body whose events pass maxBatchBytes together: the ones past it are refused',
      limits: { maxBatchBytes: 600 },
      events: [sized(1, 300), sized(2, 300), command(3)],
    },
    {
      name: 'more events than the rate burst (eventsBurst 2)',
      limits: { eventsBurst: 2 },
      events: [command(1), command(2), command(3)],
    },
    {
      name: 'more bytes than the byte-rate burst (bytesBurst 400)',
      limits: { bytesBurst: 400 },
      events: [sized(1, 200), sized(2, 200), sized(3, 200)],
    },
  ];
}

/** The section as written to golden.json. */
export function buildEventRefusalVectors(): Array<Record<string, unknown>> {
  return cases().map(({ name, limits = {}, events }) => {
    const resolved = resolveEventLimits(limits);
    // The clock stands still: a vector's rate refusals come from the burst alone.
    const checked = checkEvents(events, resolved, new EventRateLimit(resolved, () => 0), () => false);
    const body = { t: 'events', stream: STREAM, events };
    const ack = {
      t: 'events_ack',
      stream: STREAM,
      seq: (events.at(-1) as ModEvent).seq,
      ...(checked.refused.length > 0 ? { refused: checked.refused } : {}),
    };
    return {
      name,
      limits,
      event_bytes: events.map(encodedEventBytes),
      body: Buffer.from(encode(body)).toString('hex'),
      events,
      ack,
    };
  });
}
