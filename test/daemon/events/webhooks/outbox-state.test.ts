import { describe, expect, it } from 'vitest';
import {
  OutboxState,
  positionMarker,
  type OutboxRecord,
} from '../../../../daemon/events/webhooks/outbox-state.ts';

function attempt(outcome: 'delivered' | 'failed', event: number, n: number, at: string): OutboxRecord {
  return {
    endpoint: 'wh_a',
    outcome,
    at,
    first_event: event,
    last_event: event,
    message_id: `msg_${event}`,
    attempt: n,
    run_started_at: outcome === 'failed' ? '2030-01-01T00:00:00.000Z' : null,
    status: outcome === 'failed' ? 500 : 200,
    latency_ms: 1,
    error: null,
    retry_in_ms: null,
  };
}

describe('outbox state', () => {
  it('tracks the position, the failure run and the recent attempts', () => {
    const state = new OutboxState();
    state.apply(attempt('delivered', 1, 1, '2030-01-01T00:00:00.000Z'));
    state.apply(attempt('failed', 2, 1, '2030-01-01T00:00:01.000Z'));
    state.apply(attempt('failed', 2, 2, '2030-01-01T00:00:02.000Z'));
    expect(state.get('wh_a')).toMatchObject({
      position: 1,
      run: { firstEvent: 2, attempts: 2, startedAt: new Date('2030-01-01T00:00:00.000Z') },
    });
    state.apply(attempt('delivered', 2, 3, '2030-01-01T00:00:03.000Z'));
    expect(state.get('wh_a')).toMatchObject({ position: 2, run: null });
    expect(state.get('wh_a').recent).toHaveLength(4);
  });

  it('folds its compacted lines back to the same state', () => {
    const state = new OutboxState();
    state.apply(attempt('delivered', 5, 1, '2030-01-01T00:00:00.000Z'));
    state.apply(positionMarker('wh_a', 9, new Date()));
    state.apply(attempt('failed', 10, 1, '2030-01-01T00:00:01.000Z'));
    const again = new OutboxState();
    for (const line of state.compacted()) again.apply(line);
    expect(again.get('wh_a').position).toBe(9);
    expect(again.get('wh_a').run).toEqual(state.get('wh_a').run);
    expect(again.get('wh_a').recent).toEqual(state.get('wh_a').recent);
  });

  it('keeps only the newest hundred attempts', () => {
    const state = new OutboxState();
    for (let id = 1; id <= 150; id++) state.apply(attempt('delivered', id, 1, '2030-01-01T00:00:00.000Z'));
    expect(state.get('wh_a').recent).toHaveLength(100);
    expect(state.get('wh_a').recent[0]?.first_event).toBe(51);
  });
});
