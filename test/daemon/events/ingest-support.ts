/**
 * The ingest of mod events (daemon/events/ingest.ts) on a real log in a temp dir, wired to a
 * stand-in for the link: `send` emits one `events` body as the link server would and resolves
 * with the ack the daemon gives it. What was refused is counted and logged as in the daemon.
 */
import { EventEmitter } from 'node:events';
import { recordLinkEvents, type IngestOptions } from '../../../daemon/events/ingest.ts';
import { FileEventLog } from '../../../daemon/events/event-log.ts';
import type { Logger } from '../../../daemon/log/log.ts';
import type { EventRefusal, ModEvent } from '../../../protocol/frames.ts';
import type { ModEventBatch, ModLinkServer } from '../../../protocol/link-server.ts';
import { commandData } from '../../support/game-events.ts';
import { makeTempDir } from '../store/temp-dir.ts';

export interface Acked {
  seq: number;
  refused: readonly EventRefusal[];
}

/** A log, the ingest wired to a stand-in link, and what it acknowledged, refused, counted, logged. */
export async function ingest(options: IngestOptions = {}) {
  const eventLog = await FileEventLog.open(await makeTempDir());
  const link = new EventEmitter();
  const counted: string[] = [];
  const warnings: Array<{ msg: string; fields: Record<string, unknown> }> = [];
  const logger = {
    ...silent,
    warn: (msg: string, fields: Record<string, unknown> = {}) => warnings.push({ msg, fields }),
  } as Logger;
  const unwire = recordLinkEvents(link as unknown as ModLinkServer, eventLog, logger, {
    metrics: { eventsRefused: (reason) => counted.push(reason) },
    ...options,
  });
  let seq = 0;
  /** Sends one `events` body (seq numbered unless given) and resolves with its ack. */
  const send = (events: Array<Partial<ModEvent>>, stream = 'stream-1') =>
    new Promise<Acked>((resolve) => {
      const body: ModEvent[] = events.map((event) => ({
        seq: (seq += 1),
        type: 'command.executed',
        at: '2025-06-01T12:00:00.000Z',
        data: commandData(`#Say ${seq}`),
        ...event,
      }));
      const batch: ModEventBatch = {
        abort: () => resolve({ seq: -1, refused: [] }),
        stream,
        events: body,
        ack: (last, refused = []) => resolve({ seq: last, refused }),
      };
      link.emit('events', batch);
    });
  /** Emits several bodies in one turn, as one frame's would be; resolves with the acks in the order sent. */
  const burst = (bodies: ReadonlyArray<{ stream: string; events: ModEvent[] }>) => {
    const acks: Array<Acked & { stream: string }> = [];
    return Promise.all(
      bodies.map(
        ({ stream, events: list }) =>
          new Promise<void>((resolve) => {
            const done = (acked: Acked) => {
              acks.push({ stream, ...acked });
              resolve();
            };
            link.emit('events', {
              stream,
              events: list,
              ack: (last, refused = []) => done({ seq: last, refused }),
              abort: () => done({ seq: -1, refused: [] }),
            } satisfies ModEventBatch);
          }),
      ),
    ).then(() => acks);
  };
  const stored = () =>
    eventLog.readAfter(0, 10_000) as Array<{ type: string; data: Record<string, unknown>; at: string }>;
  const close = async () => {
    unwire();
    await eventLog.close();
  };
  return { send, burst, stored, counted, warnings, close, eventLog };
}

const ignore = (): void => {};
const silent = { debug: ignore, info: ignore, warn: ignore, error: ignore, child: () => silent };
