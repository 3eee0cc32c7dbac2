/**
 * PROTOCOL §9.3: the daemon acknowledges each `events` body on its own, naming that body's highest
 * seq, in the order the bodies came; never the highest seq it holds for the stream. Checked on the
 * real ingest and log against the golden burst (frames 8 and 9 of protocol/vectors/golden.json).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EventsAckFrame, EventsFrame, FrameBody } from '../../../protocol/frames.ts';
import { commandData } from '../../support/game-events.ts';
import { ingest } from './ingest-support.ts';

interface GoldenFrame {
  direction: 'daemon->mod' | 'mod->daemon';
  bodies: FrameBody[];
}
const golden = JSON.parse(
  readFileSync(new URL('../../../protocol/vectors/golden.json', import.meta.url), 'utf8'),
) as { frames: GoldenFrame[] };

const command = (seq: number) => ({
  seq,
  type: 'command.executed',
  at: '2025-06-01T12:00:00.000Z',
  data: commandData(`#Say ${seq}`),
});

describe('events_ack, one per body (PROTOCOL §9.3)', () => {
  it('answers the golden burst of two bodies with the golden acks: 2, then 3', async () => {
    const at = golden.frames.findIndex((frame) => frame.bodies.some((body) => body.t === 'events'));
    const sent = (golden.frames[at] as GoldenFrame).bodies as EventsFrame[];
    const answered = golden.frames[at + 1] as GoldenFrame;
    expect(answered.direction).toBe('daemon->mod');
    const t = await ingest();
    const acks = await t.burst(sent);
    const bodies: EventsAckFrame[] = acks.map(({ stream, seq }) => ({ t: 'events_ack', stream, seq }));
    expect(bodies).toEqual(answered.bodies);
    expect(t.stored().map((event) => event.type)).toEqual([
      'player.joined',
      'player.banned',
      'command.executed',
    ]);
    await t.close();
  });

  it('acknowledges the bodies of a burst in the order they came, each with its own highest seq', async () => {
    const t = await ingest();
    const bodies = [[1, 2], [3], [4, 5, 6], [7]].map((seqs) => ({
      stream: 's',
      events: seqs.map(command),
    }));
    const acks = await t.burst(bodies);
    expect(acks.map((ack) => ack.seq)).toEqual([2, 3, 6, 7]);
    expect(t.stored()).toHaveLength(7);
    await t.close();
  });

  it('names a resent body its own highest seq, not the highest the stream has stored', async () => {
    const t = await ingest();
    await t.burst([{ stream: 's', events: [1, 2, 3, 4, 5].map(command) }]);
    const acks = await t.burst([{ stream: 's', events: [command(1), command(2)] }]);
    expect(acks).toEqual([{ stream: 's', seq: 2, refused: [] }]);
    expect(t.stored()).toHaveLength(5);
    await t.close();
  });

  it('stores the events around a gap and acknowledges the body without waiting for the missing seq', async () => {
    const t = await ingest();
    const acks = await t.burst([
      { stream: 's', events: [command(1), command(4)] },
      { stream: 's', events: [command(9)] },
    ]);
    expect(acks.map((ack) => ack.seq)).toEqual([4, 9]);
    expect(t.stored()).toHaveLength(3);
    await t.close();
  });
});
