/**
 * Run around every test file (vitest.config.ts `setupFiles`): fails a file that ends with a
 * timer or a listening socket still open that modgate's own code (daemon/,
 * protocol/, mod-sim/, mod-test/) opened while the file ran: an in-process daemon, pipeline,
 * service or simulator the file did not close. The `shared` project runs file after file in one
 * worker process (isolate: false), where such a leftover keeps running beside the files that
 * follow and disturbs them (a daemon one file left armed 16 timers a second in a later file that
 * counted timers); this names the file that left it and where it was opened, in that file's
 * own failure (docs/architecture.md, "Where tests live").
 *
 * It sees them through async_hooks: every timer and server handle is noted with its stack
 * (captured, formatted only when reported) and checked for life when the file ends; what the
 * product's code armed itself and is still open is reported (a TCP listener bound after a name
 * lookup is armed from Node's callback and not seen; a daemon's admin socket and timers are). A one-shot timer still pending then
 * (a close's grace period) is waited for first; a handle, an interval, or a timer still pending
 * after that is reported.
 */
import { createHook } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';

/** A timer or handle the hook saw created, with the file that was running then. */
interface Opened {
  readonly type: string;
  readonly resource: Resource;
  readonly site: { stack?: string };
  readonly file: string;
}

/** What the checks read of a Timeout or a server handle (TCP, pipe). */
interface Resource {
  _destroyed?: boolean;
  _repeat?: number | null;
  fd?: number;
}

/**
 * Not folder watches (FSEVENTWRAP): the only way to ask one whether it is open, its `initialized`
 * getter, aborts the whole process (a failed native assertion) once the watch is closed and freed.
 * A daemon left open is still seen by its timers and its admin socket.
 */
const WATCHED = new Set(['Timeout', 'TCPSERVERWRAP', 'PIPESERVERWRAP']);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** A frame in the product's code: what a leftover must have been opened by to be reported. */
const PRODUCT_FRAME = new RegExp(
  `\\(?${ROOT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(daemon|protocol|mod-sim|mod-test)/`,
);

/**
 * Polls `done` until it holds or `limitMs` passes. Not harness/stack.ts's `eventually`: this file
 * runs before every test file, and importing the harness would load the daemon's modules ahead of
 * a file's own `vi.mock`s (the `isolated` project), which then mock nothing.
 */
async function drained(done: () => boolean, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

function alive({ type, resource }: Opened): boolean {
  if (type === 'Timeout') return resource._destroyed !== true;
  return (resource.fd ?? -1) >= 0;
}

/** One-shot timers end by themselves; everything else stays until closed. */
const drains = (opened: Opened): boolean => opened.type === 'Timeout' && opened.resource._repeat == null;

interface Tracker {
  opened: Set<Opened>;
  file: string;
  added: number;
}

/**
 * One hook per worker: setup files run again for every file, and the worker keeps this module's
 * first evaluation only when the file's registry is shared, so the tracker lives on globalThis.
 */
function tracker(): Tracker {
  const key = Symbol.for('modgate.left-running');
  const holder = globalThis as { [key]?: Tracker };
  const existing = holder[key];
  if (existing) return existing;
  const state: Tracker = { opened: new Set(), file: '', added: 0 };
  holder[key] = state;
  const init = (_id: number, type: string, _trigger: number, resource: object): void => {
    if (!WATCHED.has(type)) return;
    // Captured now, formatted only if reported: most timers end long before the file does.
    const site: { stack?: string } = {};
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 40; // a server's listen() is deep in net's own frames
    Error.captureStackTrace(site, init);
    Error.stackTraceLimit = limit;
    state.opened.add({ type, resource: resource as Resource, site, file: state.file });
    // Drop what has ended now and then, so a file's thousands of timers are not all kept.
    if (++state.added % 2_000 === 0) for (const o of state.opened) if (!alive(o)) state.opened.delete(o);
  };
  createHook({ init }).enable();
  return state;
}

const state = tracker();

beforeAll(() => {
  state.file = expect.getState().testPath ?? '';
  for (const o of state.opened) if (!alive(o)) state.opened.delete(o);
});

/**
 * Whether the product's code itself armed it: the first frame in a file is in daemon/,
 * protocol/, mod-sim/ or mod-test/. What Node arms on the product's behalf is left out (the HTTP
 * Date header's one-second cache timer, behind every writeHead), as is what a library arms.
 */
function armedByProduct(opened: Opened): boolean {
  const frames = (opened.site.stack ?? '').split('\n').slice(1);
  // The first frame in a file: not Node's (node:…), nor a builtin's (new Promise (<anonymous>)).
  const caller = frames.find((line) => /[( ](\/|file:\/\/)/.test(line));
  return caller !== undefined && PRODUCT_FRAME.test(caller);
}

/** What the file opened in the product's code and left open. */
function leftOpen(file: string): Opened[] {
  return [...state.opened].filter((o) => o.file === file && alive(o) && armedByProduct(o));
}

afterAll(async () => {
  const file = state.file;
  // A pending one-shot timer may be a close's grace period: it is waited for (a safety net, not a
  // measurement); a chain that arms the next one as it fires never ends and is reported.
  await drained(() => leftOpen(file).every((o) => !drains(o)), 20_000);
  const left = leftOpen(file);
  if (left.length === 0) return;
  const where = left.slice(0, 5).map((o) => {
    const frames = (o.site.stack ?? '')
      .split('\n')
      .filter((line) => line.includes(ROOT) && !line.includes('/node_modules/'));
    return `${o.type} opened at\n${frames.slice(0, 10).join('\n')}`;
  });
  throw new Error(
    `${left.length} timer(s) or handle(s) that modgate's code opened during this file are still open after it ended: an in-process daemon, pipeline, service or simulator was not closed\n${where.join('\n')}`,
  );
});
