import { describe, expect, it } from 'vitest';
import { banData, commandData } from '../../support/game-events.ts';
import { ingest } from './ingest-support.ts';

describe('mod events entering the log', () => {
  it('stores a valid event and acknowledges it with nothing refused', async () => {
    const t = await ingest();
    expect(await t.send([{ type: 'player.banned', data: banData() }])).toEqual({ seq: 1, refused: [] });
    expect(t.stored()).toMatchObject([{ type: 'player.banned', data: banData() }]);
    await t.close();
  });

  it('refuses the daemon own event types from the mod, and tells the mod in the ack', async () => {
    const t = await ingest();
    const ack = await t.send([
      { type: 'mod.connected', data: { mod_version: 'x', protocol_version: 1 } },
      { type: 'mod.disconnected', data: { code: 1000, reason: '' } },
      {},
    ]);
    expect(ack).toEqual({
      seq: 3,
      refused: [
        { seq: 1, reason: 'reserved_type' },
        { seq: 2, reason: 'reserved_type' },
      ],
    });
    expect(t.stored().map((event) => event.type)).toEqual(['command.executed']);
    expect(t.counted).toEqual(['reserved_type', 'reserved_type']);
    await t.close();
  });

  it('refuses an event whose data does not fit its type, and one of a type it does not know', async () => {
    const t = await ingest();
    const ack = await t.send([{ type: 'player.banned', data: {} }, { type: 'player.teleported' }]);
    expect(ack.refused).toEqual([
      { seq: 1, reason: 'invalid_data' },
      { seq: 2, reason: 'unknown_type' },
    ]);
    expect(t.stored()).toEqual([]);
    await t.close();
  });

  it('refuses an unparseable or impossible at instead of replacing it, and stores a valid one in UTC', async () => {
    const t = await ingest();
    const ack = await t.send([
      { at: 'yesterday' },
      { at: '2025-02-30T12:00:00Z' },
      { at: '2025-06-01 12:00:00' },
      { at: '2025-06-01T14:00:00.5+02:00' },
    ]);
    expect(ack.refused.map((refusal) => refusal.reason)).toEqual(['invalid_at', 'invalid_at', 'invalid_at']);
    expect(t.stored().map((event) => event.at)).toEqual(['2025-06-01T12:00:00.500Z']);
    await t.close();
  });

  it('refuses an event over maxEventBytes and the events of a body past maxBatchBytes', async () => {
    const t = await ingest({ limits: { maxEventBytes: 2_048, maxBatchBytes: 4_096 } });
    const big = commandData('#Say', 'x'.repeat(3_000));
    const mid = commandData('#Say', 'y'.repeat(1_500));
    const ack = await t.send([{ data: big }, { data: mid }, { data: mid }, { data: mid }]);
    expect(ack.refused).toEqual([
      { seq: 1, reason: 'event_too_large' },
      { seq: 2, reason: 'batch_too_large' },
      { seq: 3, reason: 'batch_too_large' },
      { seq: 4, reason: 'batch_too_large' },
    ]);
    // 3,000 bytes of the first event count toward the body: the second already passes 4,096.
    const alone = await t.send([{ data: mid }, { data: mid }, { data: mid }]);
    expect(alone.refused).toEqual([{ seq: 7, reason: 'batch_too_large' }]);
    expect(t.stored()).toHaveLength(2);
    await t.close();
  });

  it('refuses events past the rate and its burst, and takes more once the bucket refills', async () => {
    let now = 1_000_000;
    const t = await ingest({ limits: { eventsPerSecond: 2, eventsBurst: 3 }, now: () => now });
    const first = await t.send([{}, {}, {}, {}, {}]);
    expect(first.refused).toEqual([
      { seq: 4, reason: 'rate_limited' },
      { seq: 5, reason: 'rate_limited' },
    ]);
    now += 1_000; // two more tokens
    const second = await t.send([{}, {}, {}]);
    expect(second.refused).toEqual([{ seq: 8, reason: 'rate_limited' }]);
    expect(t.stored()).toHaveLength(5);
    await t.close();
  });

  it('limits the rate in bytes too', async () => {
    const t = await ingest({ limits: { bytesPerSecond: 1_024, bytesBurst: 4_096 }, now: () => 0 });
    const ack = await t.send(
      Array.from({ length: 4 }, () => ({ data: commandData('#Say', 'z'.repeat(1_500)) })),
    );
    expect(ack.refused.map((refusal) => refusal.seq)).toEqual([3, 4]);
    await t.close();
  });

  it('neither checks nor charges a resend of events already stored', async () => {
    const t = await ingest({ limits: { eventsPerSecond: 1, eventsBurst: 2 }, now: () => 0 });
    expect(await t.send([{ seq: 1 }, { seq: 2 }])).toEqual({ seq: 2, refused: [] });
    // The bucket is empty now; a redial resends both: acknowledged, not refused, not stored twice.
    expect(await t.send([{ seq: 1 }, { seq: 2 }])).toEqual({ seq: 2, refused: [] });
    expect(t.stored()).toHaveLength(2);
    await t.close();
  });

  it('logs refusals once per interval with their counts, not once per event', async () => {
    const t = await ingest({ limits: { eventsPerSecond: 1, eventsBurst: 1 }, now: () => 0 });
    await t.send(Array.from({ length: 200 }, () => ({})));
    const refusedLines = t.warnings.filter((line) => line.msg.startsWith('mod events refused'));
    expect(refusedLines).toHaveLength(1);
    await t.close();
    const all = t.warnings.filter((line) => line.msg.startsWith('mod events refused'));
    expect(all).toHaveLength(2);
    expect(all[1]?.fields['counts']).toEqual({ rate_limited: 198 });
  });
});
