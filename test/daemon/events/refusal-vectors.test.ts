import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildEventRefusalVectors } from '../../../daemon/events/refusal-vectors.ts';
import { decode } from '../../../protocol/codec.ts';
import type { EventRefusal, ModEvent } from '../../../protocol/frames.ts';
import { ingest } from './ingest-support.ts';

interface RefusalVector {
  name: string;
  limits: Record<string, number>;
  body: string;
  events: ModEvent[];
  ack: { t: 'events_ack'; stream: string; seq: number; refused?: EventRefusal[] };
}

const golden = JSON.parse(
  readFileSync(new URL('../../../protocol/vectors/golden.json', import.meta.url), 'utf8'),
) as { event_refusals: RefusalVector[] };

describe('golden vectors: event refusals (PROTOCOL §9.5)', () => {
  it('are exactly what scripts/gen-vectors.ts generates today', () => {
    expect(JSON.parse(JSON.stringify(buildEventRefusalVectors()))).toEqual(golden.event_refusals);
  });

  it('cover every refusal reason', () => {
    const reasons = new Set(golden.event_refusals.flatMap((v) => (v.ack.refused ?? []).map((r) => r.reason)));
    expect([...reasons].sort()).toEqual([
      'batch_too_large',
      'event_too_large',
      'invalid_at',
      'invalid_data',
      'rate_limited',
      'reserved_type',
      'unknown_type',
    ]);
  });

  for (const vector of golden.event_refusals) {
    it(`answers its events_ack to ${vector.name}`, async () => {
      const decoded = decode(Buffer.from(vector.body, 'hex'));
      if (!decoded.ok) throw decoded.error;
      const body = decoded.value as { stream: string; events: ModEvent[] };
      expect(body.events).toEqual(vector.events);
      const t = await ingest({ limits: vector.limits, now: () => 0 });
      const ack = await t.send(body.events, body.stream);
      expect({
        t: 'events_ack',
        stream: body.stream,
        seq: ack.seq,
        ...(ack.refused.length ? { refused: ack.refused } : {}),
      }).toEqual(vector.ack);
      const refused = new Set((vector.ack.refused ?? []).map((r) => r.seq));
      expect(t.stored()).toHaveLength(body.events.filter((event) => !refused.has(event.seq)).length);
      await t.close();
    });
  }
});
