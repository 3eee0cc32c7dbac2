/**
 * `modgate sim`: a simulated game server. It builds a seeded world, answers the op catalogue
 * through the embeddable bridge (the same one a JavaScript mod would use), and consults a fault
 * plan before every answer so tests and mod authors can make it late, silent, wrong or gone.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startModBridge, type ModBridge } from '../bridge/bridge.ts';
import type { KeyPair } from '../protocol/keys.ts';
import type { Logger } from '../protocol/log.ts';
import { OPS, type OpHandlers, type OpName, OpError } from '../protocol/ops/index.ts';
import { CommandConsole, ConsoleActivity } from './console/index.ts';
import { FaultPlan, type FaultRule } from './faults.ts';
import { GameLife } from './game-life.ts';
import { assetHandlers } from './handlers/assets.ts';
import { claimCodeHandlers } from './handlers/claim-codes.ts';
import { startDmQueue } from './handlers/claim-codes-dm.ts';
import { commandHandlers } from './handlers/commands.ts';
import { economyHandlers } from './handlers/economy.ts';
import { packHandlers } from './handlers/packs.ts';
import { playerHandlers } from './handlers/players.ts';
import { serverHandlers } from './handlers/server.ts';
import { createWorld, type World } from './world/index.ts';

export interface SimulatorOptions {
  /** The daemon's mod-link address, e.g. ws://127.0.0.1:8788. */
  url: string;
  identity: KeyPair;
  daemonPublicKey: Uint8Array;
  seed?: number;
  players?: number;
  modVersion?: string;
  faults?: readonly FaultRule[];
  /** A prebuilt world (tests share one across simulators); otherwise one is generated. */
  world?: World;
  log?: Logger;
  backoff?: { initialMs?: number; maxMs?: number };
  /**
   * Run the world on the wall clock (`modgate sim`, the demo): generated at start-up, with bans
   * expiring in real time. Off by default, so tests get a deterministic, frozen clock.
   */
  wallClock?: boolean;
  /** Milliseconds until the game has built its command catalogue (503 before); default 1,000. */
  catalogDelayMs?: number;
  /** Console verbs the operator blocked; the game refuses them (`success: false`). */
  blockedVerbs?: readonly string[];
  /** Spacing of the game's own console commands (panel, chat, tasks); 0 = none; default 60,000. */
  activityIntervalMs?: number;
  /** How often the claim-code direct-message queue is worked; 0 = never (tests); default 1,000. */
  dmQueueIntervalMs?: number;
  /** Happenings a minute on the seeded schedule of game-life.ts (joins, leaves, bans, ...); default 0. */
  eventsRate?: number;
  /** Most unacknowledged game events the bridge keeps (PROTOCOL §9.4); default 10,000. */
  eventBuffer?: number;
  /**
   * Changes the op handlers before faults wrap them: tests build deliberately broken mods from
   * the simulator this way (a mute not rounded, coins applied twice for one op id).
   */
  patchHandlers?: (handlers: Partial<OpHandlers>) => Partial<OpHandlers>;
}

export interface Simulator {
  world: World;
  faults: FaultPlan;
  bridge: ModBridge;
  /** How many times each op reached the game side: proves caching and coalescing in tests. */
  opCounts: Map<string, number>;
  /** The game's admin console: tests finish loading its catalogue or run commands directly. */
  console: CommandConsole;
  /** The game's own console traffic (panel, chat, scheduled tasks). */
  activity: ConsoleActivity;
  /** Players joining and leaving, panel bans and balance changes (`--events-rate`). */
  life: GameLife;
  /** Resolves once the link is up (the first time, or again after a drop). */
  connected(): Promise<void>;
  close(): Promise<void>;
}

export function startSimulator(options: SimulatorOptions): Simulator {
  const world =
    options.world ??
    createWorld({
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.players !== undefined ? { players: options.players } : {}),
      ...(options.modVersion !== undefined ? { modVersion: options.modVersion } : {}),
      ...(options.wallClock ? { now: Date.now(), clock: Date.now } : {}),
    });
  const faults = new FaultPlan(options.faults ?? []);
  const opCounts = new Map<string, number>();
  const gameConsole = new CommandConsole(world, {
    ...(options.catalogDelayMs !== undefined ? { catalogDelayMs: options.catalogDelayMs } : {}),
    ...(options.blockedVerbs !== undefined ? { blockedVerbs: options.blockedVerbs } : {}),
  });
  const activity = new ConsoleActivity(gameConsole);
  activity.start(options.activityIntervalMs);
  const dmQueue = startDmQueue(world, options.dmQueueIntervalMs);
  const gameHandlers: Partial<OpHandlers> = {
    ...serverHandlers(world),
    ...assetHandlers(world),
    ...playerHandlers(world),
    ...commandHandlers(world, gameConsole),
    ...economyHandlers(world, gameConsole),
    ...packHandlers(world, { faults }),
    ...claimCodeHandlers(world, { faults }),
  };
  const handlers = options.patchHandlers ? options.patchHandlers(gameHandlers) : gameHandlers;
  const bridge: ModBridge = startModBridge({
    url: options.url,
    identity: options.identity,
    daemonPublicKey: options.daemonPublicKey,
    modVersion: world.modVersion,
    handlers: withFaults(handlers, faults, opCounts, () => bridge),
    ...(options.log ? { log: options.log } : {}),
    ...(options.backoff ? { backoff: options.backoff } : {}),
    ...(options.eventBuffer !== undefined ? { events: { capacity: options.eventBuffer } } : {}),
  });
  // PROTOCOL §9: every change the world reports goes to the daemon as a game event.
  world.events.connect((type, data, at) => bridge.events.emit(type, data, at));
  const life = new GameLife(gameConsole);
  life.start(options.eventsRate);
  return {
    world,
    faults,
    bridge,
    opCounts,
    console: gameConsole,
    activity,
    life,
    connected: () =>
      bridge.connected
        ? Promise.resolve()
        : new Promise((resolve) => bridge.once('connect', () => resolve())),
    close: () => {
      activity.stop();
      life.stop();
      dmQueue.stop();
      return bridge.close();
    },
  };
}

/** Wraps every handler so the fault plan is asked first (mod-sim/faults.ts). */
function withFaults(
  handlers: Partial<OpHandlers>,
  faults: FaultPlan,
  opCounts: Map<string, number>,
  bridge: () => ModBridge,
): Partial<OpHandlers> {
  const wrapped: Record<string, unknown> = {};
  for (const [name, handler] of Object.entries(handlers) as Array<[OpName, (...args: never[]) => unknown]>) {
    wrapped[name] = async (
      args: never,
      ctx: { opId: string | undefined; signal: AbortSignal; applied(): void },
    ) => {
      opCounts.set(name, (opCounts.get(name) ?? 0) + 1);
      const rule = faults.take(name);
      if (!rule) return handler(args, ctx as never);
      const applied = rule.afterApply && OPS[name].mutates ? await applyFirst(handler, args, ctx) : undefined;
      switch (rule.kind) {
        case 'delay':
          await sleep(rule.ms, undefined, { signal: ctx.signal });
          return applied ?? handler(args, ctx as never);
        case 'error':
          throw new OpError(rule.code, rule.message);
        case 'drop':
          bridge().dropLink();
          return never(ctx.signal);
        case 'garbage':
          bridge().sendRaw(randomBytes(64));
          return never(ctx.signal);
        case 'hang':
          // Never answers, not even at the deadline: the daemon's own deadline ends the call.
          return new Promise<never>(() => {});
        case 'invalid-result':
          // No op's result schema accepts a bare string: the daemon must answer 502.
          return 'not a result of this op';
        default: {
          const unknown: never = rule;
          throw new Error(`unhandled fault ${JSON.stringify(unknown)}`);
        }
      }
    };
  }
  return wrapped as Partial<OpHandlers>;
}

/**
 * `afterApply`: runs the handler, then tells the daemon the change is committed (PROTOCOL §6.5)
 * and waits one turn so that notice leaves (the sender flushes on setImmediate) before the fault.
 */
async function applyFirst(
  handler: (...args: never[]) => unknown,
  args: never,
  ctx: { opId: string | undefined; signal: AbortSignal; applied(): void },
): Promise<unknown> {
  const result = await handler(args, ctx as never);
  ctx.applied();
  await new Promise((resolve) => setImmediate(resolve));
  return result;
}

/** A promise that settles only when the request is abandoned (link closed). */
function never(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
  );
}
