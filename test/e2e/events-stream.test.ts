import { beforeAll, describe, expect, it } from 'vitest';
import { startDaemon } from '../../daemon/daemon.ts';
import { formatHostPort } from '../../daemon/host-port.ts';
import { DataDir } from '../../daemon/store/data-dir.ts';
import { modCredentialsFile } from '../../daemon/store/mod-credentials.ts';
import { startModBridge } from '../../bridge/bridge.ts';
import { silentLogger } from '../../daemon/log/log.ts';
import type { Player } from '../../mod-sim/world/index.ts';
import { commandData } from '../support/game-events.ts';
import { openSse, type SseClient, type SseMessage } from '../../harness/sse-client.ts';
import { eventually, startStack } from '../../harness/stack.ts';
import { suiteStack } from '../support/suite.ts';

interface Event {
  id: number;
  type: string;
  at: string;
  data: Record<string, unknown>;
}

const parsed = (message: SseMessage) => JSON.parse(message.data) as Event;
const ofType = (type: string) => (message: SseMessage) => message.event === type;

describe('GET /v1/events over real sockets', () => {
  const stack = suiteStack();
  let clean: Player[];
  let next = 0;
  const target = () => clean[next++] as Player;
  const sse = (headers: Record<string, string> = {}, query = '') =>
    openSse(`${stack.baseUrl}/v1/events${query}`, { authorization: `Bearer ${stack.key}`, ...headers });
  const ban = (player: Player) =>
    stack.call(`/v1/players/${player.platform_id}/ban`, {
      method: 'POST',
      body: JSON.stringify({ duration: 5, reason: 'griefing' }),
      headers: { 'content-type': 'application/json' },
    });
  const page = async (query: string) =>
    (await stack.call(`/v1/events${query}`)).json as {
      data: Event[];
      has_more: boolean;
      next_cursor: string | null;
    };
  const allEvents = async () => {
    const out: Event[] = [];
    let after = 0;
    for (;;) {
      const body = await page(`?after=${after}&limit=1000`);
      out.push(...body.data);
      if (!body.has_more) return out;
      after = Number(body.next_cursor);
    }
  };

  const bans = (event: Event, player: Player) =>
    event.type === 'player.banned' &&
    (event.data['player'] as { platform_id: string }).platform_id === player.platform_id;
  /** Game events reach the log shortly after the API answers: wait for the one wanted. */
  const stored = async (match: (event: Event) => boolean) => {
    let found: Event | undefined;
    await eventually(async () => (found = (await allEvents()).find(match)) !== undefined);
    return found as Event;
  };
  /** A new key, made through the daemon's admin socket, works at once. */
  const newKey = async (name: string, scopes: string) => {
    const { key } = await stack.data.createKey('--name', name, '--scopes', scopes);
    const headers = { authorization: `Bearer ${key}` };
    await eventually(async () => (await stack.call('/v1/events', { headers })).status !== 401);
    return key;
  };

  beforeAll(async () => {
    clean = stack.sim!.world.players.list.values().filter((p) => !p.moderation.ban.banned);
  });

  it('streams a ban made through the API as player.banned with the identity and ban object', async () => {
    const client = await sse();
    expect(client.status).toBe(200);
    expect(client.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const player = target();
    expect((await ban(player)).status).toBe(200);
    const message = await client.next(ofType('player.banned'));
    const event = parsed(message);
    expect(message.id).toBe(String(event.id));
    expect(event.data).toMatchObject({
      player: { platform_id: player.platform_id },
      ban: { banned: true, reason: 'griefing', permanent: false },
    });
    expect(Object.keys(event).sort()).toEqual(['at', 'data', 'id', 'type']);
    client.close();
  });

  it('starts with the daemon’s mod.connected, stored like any event', async () => {
    const events = await allEvents();
    expect(events.find((event) => event.type === 'mod.connected')?.data).toMatchObject({
      mod_version: stack.sim!.world.modVersion,
      protocol_version: 1,
    });
  });

  it('resumes after a disconnect with Last-Event-ID: nothing missed, nothing repeated', async () => {
    const first = await sse();
    const player = target();
    await ban(player);
    const seen = await first.next((m) => m.event === 'player.banned' && bans(parsed(m), player));
    first.close();
    const missed = [target(), target(), target()];
    for (const one of missed) await ban(one);
    await stored((event) => bans(event, missed[2] as Player));
    const resumed = await sse({ 'last-event-id': seen.id as string });
    const expected = (await allEvents()).filter((event) => event.id > Number(seen.id));
    await eventually(() => resumed.messages.length >= expected.length);
    const ids = resumed.messages.map((m) => Number(m.id)).slice(0, expected.length);
    expect(ids).toEqual(expected.map((event) => event.id));
    const banned = resumed.messages.filter((m) => m.event === 'player.banned').map((m) => parsed(m));
    expect(banned.map((e) => (e.data['player'] as { platform_id: string }).platform_id)).toEqual(
      missed.map((p) => p.platform_id),
    );
    resumed.close();
  });

  it('resumes from ?after= and filters by ?types=, still in id order', async () => {
    const player = target();
    await ban(player);
    const banEvent = await stored((event) => bans(event, player));
    const client = await sse({}, `?after=${banEvent.id - 1}&types=player.banned,player.unbanned`);
    await stack.call(`/v1/players/${player.platform_id}/ban`, { method: 'DELETE' });
    await client.next(ofType('player.unbanned'));
    expect(client.messages.map((m) => m.event)).toEqual(['player.banned', 'player.unbanned']);
    expect(Number(client.messages[0]?.id)).toBe(banEvent.id);
    client.close();
  });

  it('pages the same events as JSON for bots that poll, with next_cursor to pass back', async () => {
    const events = await allEvents();
    const first = await page('?limit=2');
    expect(first.data).toEqual(events.slice(0, 2));
    expect(first.has_more).toBe(true);
    const second = await page(`?cursor=${first.next_cursor}&limit=2`);
    expect(second.data).toEqual(events.slice(2, 4));
    const last = await page(`?after=${events.at(-1)?.id}`);
    expect(last).toEqual({ data: [], has_more: false, next_cursor: null });
  });

  it('shows a joining player’s IP only to keys with players:read_sensitive', async () => {
    const plain = await newKey('plain', 'events:read');
    const player = stack.sim!.world.players.list.values().find((p) => !p.online) as Player;
    const sensitive = await sse();
    const redacted = await sse({ authorization: `Bearer ${plain}` });
    stack.sim!.world.players.setOnline(player, player.live ?? ({} as never));
    const full = parsed(await sensitive.next(ofType('player.joined')));
    const shown = parsed(await redacted.next(ofType('player.joined')));
    expect(full.data['ip']).toEqual(expect.any(String));
    expect(shown.data).not.toHaveProperty('ip');
    expect(shown.data['player']).toEqual(full.data['player']);
    sensitive.close();
    redacted.close();
  });

  it('needs the events:read scope', async () => {
    const key = await newKey('reader', 'players:read');
    const client = await sse({ authorization: `Bearer ${key}` });
    expect(client.status).toBe(403);
    expect(JSON.parse(await client.text())).toMatchObject({
      error: { code: 'insufficient_scope', details: { missing_scope: 'events:read' } },
    });
  });

  it('refuses an unknown type and a position beyond the newest event with 400', async () => {
    const unknown = await stack.call('/v1/events?types=player.exploded');
    expect(unknown.status).toBe(400);
    const ahead = await stack.call('/v1/events?after=999999');
    expect(ahead.status).toBe(400);
    expect((ahead.json as { error: { code: string } }).error.code).toBe('validation_error');
  });
});

describe('the event stream under pressure', () => {
  it('cuts a reader that falls behind with a final stream.closed saying why, and counts the cut', async () => {
    const stack = await startStack({
      daemon: {
        stream: { maxBufferedBytes: 64 * 1024 },
        metrics: { listen: { host: '127.0.0.1', port: 0 }, allow: [] },
      },
    });
    try {
      const client = await openSse(`${stack.baseUrl}/v1/events`, { authorization: `Bearer ${stack.key}` });
      client.pause();
      const filler = 'x'.repeat(4_096);
      for (let n = 0; n < 3_000; n += 1)
        stack.sim!.bridge.events.emit('command.executed', commandData(`#Say ${n}`, filler));
      await eventually(() => stack.daemon.events.lastId() >= 3_000);
      client.resume();
      const final = await client.next(ofType('stream.closed'), 10_000);
      expect(JSON.parse(final.data)).toMatchObject({ reason: 'slow_reader', last_id: expect.any(Number) });
      const lastDelivered = client.messages.filter((m) => m.id !== null).at(-1);
      expect(JSON.parse(final.data).last_id).toBe(Number(lastDelivered?.id));
      expect(Number(lastDelivered?.id)).toBeLessThan(stack.daemon.events.lastId());
      await client.ended;
      const metrics = await (
        await fetch(`http://${formatHostPort(stack.daemon.metricsAddress!)}/metrics`)
      ).text();
      expect(metrics).toMatch(/^modgate_event_stream_cuts_total\{reason="slow_reader"\} 1$/m);
    } finally {
      await stack.close();
    }
  });

  it('replays a backlog far larger than the slow-reader limit to a reader that keeps up', async () => {
    const stack = await startStack({ daemon: { stream: { maxBufferedBytes: 64 * 1024 } } });
    try {
      const filler = 'x'.repeat(4_096);
      for (let n = 0; n < 400; n += 1)
        stack.sim!.bridge.events.emit('command.executed', commandData(`#Say ${n}`, filler));
      await eventually(() => stack.daemon.events.lastId() >= 400);
      const last = stack.daemon.events.lastId();
      const client = await openSse(`${stack.baseUrl}/v1/events?after=0`, {
        authorization: `Bearer ${stack.key}`,
      });
      await client
        .next((m) => m.id === String(last), 10_000)
        .catch((e: Error) => {
          throw new Error(`${e.message}; got ${client.messages.length} of ${last}`);
        });
      expect(client.messages.map((m) => Number(m.id))).toEqual([...Array(last).keys()].map((i) => i + 1));
      expect(client.messages.some((m) => m.event === 'stream.closed')).toBe(false);
      client.close();
    } finally {
      await stack.close();
    }
  });

  it('keeps an idle stream open past the request timeout, with heartbeat comments', async () => {
    const stack = await startStack({
      sim: false,
      daemon: { http: { requestTimeoutMs: 1_000, headersTimeoutMs: 1_000 }, stream: { heartbeatMs: 250 } },
    });
    try {
      const client = await openSse(`${stack.baseUrl}/v1/events`, { authorization: `Bearer ${stack.key}` });
      let ended = false;
      void client.ended.then(() => (ended = true));
      // Eight heartbeats are two seconds: twice the request timeout.
      await eventually(() => client.comments.filter((c) => c === 'heartbeat').length >= 8);
      expect(ended).toBe(false);
      client.close();
    } finally {
      await stack.close();
    }
  });

  it('ends every stream with stream.closed reason shutdown when the daemon stops', async () => {
    const stack = await startStack({ sim: false });
    const client = await openSse(`${stack.baseUrl}/v1/events`, { authorization: `Bearer ${stack.key}` });
    await eventually(() => client.comments.length > 0);
    const closing = stack.daemon.close();
    const final = await client.next(ofType('stream.closed'));
    expect(JSON.parse(final.data)).toMatchObject({ reason: 'shutdown' });
    await closing;
    await client.ended;
    await stack.data.remove();
  });

  it('answers a position older than retention with 400 and the oldest id still held', async () => {
    const stack = await startStack({ daemon: { events: { maxEvents: 4, segmentEvents: 2 } } });
    try {
      for (let n = 0; n < 12; n += 1)
        stack.sim!.bridge.events.emit('command.executed', commandData(`#Say ${n}`));
      await eventually(() => stack.daemon.events.lastId() >= 13);
      const polled = await stack.call('/v1/events?after=0');
      expect(polled.status).toBe(400);
      const error = (polled.json as { error: { code: string; details: { oldest_id: number } } }).error;
      expect(error.code).toBe('validation_error');
      expect(error.details.oldest_id).toBe(stack.daemon.events.oldestId());
      const streamed = await openSse(`${stack.baseUrl}/v1/events`, {
        authorization: `Bearer ${stack.key}`,
        'last-event-id': '1',
      });
      expect(streamed.status).toBe(400);
      const resumable = await stack.call(`/v1/events?after=${error.details.oldest_id - 1}`);
      expect(resumable.status).toBe(200);
    } finally {
      await stack.close();
    }
  });
});

describe('events across restarts and redials', () => {
  const stack = suiteStack();

  const stored = () =>
    stack.daemon.events.readAfter(0, 100_000) as Array<{ id: number; data: Record<string, unknown> }>;

  it('resends events the daemon never acknowledged after a redial, and stores each once', async () => {
    const bridge = stack.sim!.bridge;
    const seqs: number[] = [];
    for (let n = 0; n < 50; n += 1)
      seqs.push(bridge.events.emit('command.executed', commandData(`redial ${n}`)));
    bridge.dropLink(); // the same turn: nothing has been acknowledged yet
    await eventually(() => bridge.events.pending === 0);
    const marked = stored().filter((event) => String(event.data['command']).startsWith('redial '));
    expect(marked.map((event) => event.data['command'])).toEqual(
      [...Array(50).keys()].map((n) => `redial ${n}`),
    );
  });

  it('drops a resend of sequences already stored, even from another connection', async () => {
    const credentials = await (await DataDir.open(stack.data.dir)).read(modCredentialsFile);
    // A second mod process that reuses the first one's stream id resends sequences 1, 2, 3,
    // which the daemon has stored already: it acknowledges them and stores nothing.
    const replay = startModBridge({
      url: `ws://${formatHostPort(stack.daemon.modLink)}`,
      identity: credentials.identity,
      daemonPublicKey: credentials.daemonPublicKey,
      modVersion: '2.1.0',
      handlers: {},
      events: { stream: stack.sim!.bridge.events.stream },
    });
    for (let n = 0; n < 3; n += 1) replay.events.emit('command.executed', commandData(`replayed ${n}`));
    await eventually(() => replay.events.pending === 0);
    await replay.close();
    expect(stored().filter((event) => String(event.data['command']).startsWith('replayed '))).toEqual([]);
  });

  it('keeps ids increasing across a daemon restart', async () => {
    await stack.daemon.close();
    const last = stack.daemon.events.lastId();
    stack.daemon = await startDaemon({
      dataDir: stack.data.dir,
      listen: { host: '127.0.0.1', port: 0 },
      modListen: { host: '127.0.0.1', port: 0 },
      log: silentLogger,
    });
    expect(stack.daemon.events.lastId()).toBeGreaterThanOrEqual(last);
    const appended = await stack.daemon.events.append({
      type: 'command.executed',
      data: { marker: 'after' },
    });
    expect(appended?.id).toBeGreaterThan(last);
    const ids = stored().map((event) => event.id);
    expect(ids).toEqual([...ids.keys()].map((index) => index + 1));
  });
});

export type { SseClient };
