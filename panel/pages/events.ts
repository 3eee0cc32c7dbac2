/**
 * A live tail of every event, or of one type (GET /admin/v1/events, server-sent events with the
 * session cookie): each event's id, type, time and a line saying what happened, its JSON on
 * demand. EventSource reconnects by itself with Last-Event-ID, so a restart of the daemon resumes
 * the tail without a gap; the badge says why it is reconnecting or closed. The page keeps the
 * newest 200 events.
 */
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ADMIN, SessionEnded } from '../api.ts';
import { summarize } from '../event-summary.ts';
import { Field, when, type View } from '../ui.ts';

interface Shown {
  id: string;
  type: string;
  at: string;
  summary: string;
  json: string;
}

interface TailState {
  state: 'connecting' | 'live' | 'reconnecting' | 'closed';
  reason?: string;
}

const KEEP = 200;

/** What a `stream.closed` message's reason means (docs/events.md, "When a stream ends"). */
const CLOSED_REASONS: Record<string, string> = {
  slow_reader: 'this page fell too far behind the stream',
  shutdown: 'the daemon is stopping',
  gone: 'retention dropped events while this page caught up',
};

export function EventsPage(): View {
  const [events, setEvents] = useState<Shown[]>([]);
  const [tail, setTail] = useState<TailState>({ state: 'connecting' });
  const [paused, setPaused] = useState(false);
  const [type, setType] = useState('');
  /** Bumped by "Reconnect" after the stream closed for good. */
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (paused) return;
    setTail({ state: 'connecting' });
    const add = (event: Shown) => setEvents((shown) => [event, ...shown].slice(0, KEEP));
    const source = openTail(type, add, setTail);
    return () => source.close();
  }, [paused, type, round]);
  const closed = tail.state === 'closed' && !paused;
  // The old stream's last messages can land after the type changed; they are not shown.
  const shown = type === '' ? events : events.filter((event) => event.type === type);
  return h(
    'div',
    null,
    h(
      'div',
      { class: 'tail-controls' },
      h(
        Field,
        { label: 'Type' },
        h(
          'select',
          {
            value: type,
            onChange: (event: Event) => {
              setEvents([]);
              setType((event.target as HTMLSelectElement).value);
            },
          },
          h('option', { value: '' }, 'Every type'),
          MODGATE_EVENT_TYPES.map((name) => h('option', { key: name, value: name }, name)),
        ),
      ),
      h(TailBadge, { tail, paused }),
      closed
        ? h('button', { type: 'button', onClick: () => setRound(round + 1) }, 'Reconnect')
        : h('button', { type: 'button', onClick: () => setPaused(!paused) }, paused ? 'Resume' : 'Pause'),
      h('button', { type: 'button', class: 'quiet', onClick: () => setEvents([]) }, 'Clear'),
    ),
    h(
      'ol',
      { class: 'tail', tabIndex: 0, 'aria-label': 'Events, newest first' },
      shown.length === 0
        ? h('li', { class: 'placeholder' }, tail.state === 'live' ? 'Waiting for events…' : 'No events yet.')
        : shown.map((event) => h(EventRow, { key: `${event.id}-${event.type}`, event })),
    ),
  );
}

function TailBadge(props: { tail: TailState; paused: boolean }): View {
  const { tail, paused } = props;
  const state = paused ? 'paused' : tail.state;
  return h(
    'span',
    { role: 'status', class: 'tail-status' },
    h('span', { class: `badge ${state}`, 'data-testid': 'tail-state' }, state),
    !paused && tail.reason ? h('span', { 'data-testid': 'tail-reason' }, tail.reason) : null,
  );
}

function EventRow({ event }: { event: Shown }): View {
  return h(
    'li',
    { 'data-testid': 'event-row' },
    h('span', { class: 'mono id' }, event.id),
    h('span', { class: 'type' }, event.type),
    h('span', { class: 'at' }, when(event.at)),
    h('span', { class: 'summary', 'data-testid': 'event-summary' }, event.summary),
    h(
      'details',
      null,
      h('summary', null, 'JSON', h('span', { class: 'visually-hidden' }, ` of event ${event.id}`)),
      h('pre', null, h('code', null, event.json)),
    ),
  );
}

/**
 * Opens the stream and reports its events and state. EventSource says only that a connection
 * failed, never why, so the reason comes from the stream's own last message (`stream.closed`, or
 * `event: error` with the envelope a new request would get) or, when the browser gave up, from
 * asking the same URL once more.
 */
function openTail(type: string, add: (event: Shown) => void, report: (tail: TailState) => void): EventSource {
  const url = `${ADMIN}/events${type === '' ? '' : `?types=${encodeURIComponent(type)}`}`;
  const source = new EventSource(url, { withCredentials: true });
  let reason: string | undefined;
  source.onopen = () => {
    reason = undefined;
    report({ state: 'live' });
  };
  source.onerror = () => {
    if (source.readyState !== EventSource.CLOSED) {
      const dropped = navigator.onLine ? 'the connection to the daemon dropped' : 'this browser is offline';
      report({ state: 'reconnecting', reason: reason ?? dropped });
      return;
    }
    report({ state: 'closed', reason: reason ?? 'asking the daemon why…' });
    void refusalOf(url).then((why) => report({ state: 'closed', reason: why }));
  };
  const shown = (event: MessageEvent<string>) => add(shownOf(event));
  for (const name of MODGATE_EVENT_TYPES) source.addEventListener(name, shown as EventListener);
  source.addEventListener('stream.closed', ((event: MessageEvent<string>) => {
    const why = parse(event.data)?.['reason'];
    reason = CLOSED_REASONS[String(why)] ?? `the daemon closed the stream (${String(why)})`;
  }) as EventListener);
  source.addEventListener('error', (event) => {
    // The connection's own `error` is a plain Event, handled by onerror; a message is the end.
    if (!(event instanceof MessageEvent)) return;
    const error = parse(String(event.data))?.['error'] as { code?: string; message?: string } | undefined;
    source.close();
    if (error?.code === 'unauthorized') dispatchEvent(new SessionEnded(error.message ?? 'unauthorized'));
    report({
      state: 'closed',
      reason: `${error?.message ?? 'the daemon ended the stream'} (${error?.code ?? '?'})`,
    });
  });
  return source;
}

/** Why the daemon refuses this stream now: its error envelope, or what stopped the request. */
async function refusalOf(url: string): Promise<string> {
  const abort = new AbortController();
  try {
    const response = await fetch(url, { credentials: 'same-origin', signal: abort.signal });
    if (response.ok) return 'the daemon ended the stream; it answers again now, so reconnect';
    const error = parse(await response.text())?.['error'] as { code?: string; message?: string } | undefined;
    const message = error?.message ?? `HTTP ${response.status}`;
    if (response.status === 401) dispatchEvent(new SessionEnded(message));
    return `${message} (${error?.code ?? `http_${response.status}`})`;
  } catch (failure) {
    return `the daemon did not answer (${String(failure)})`;
  } finally {
    abort.abort();
  }
}

function shownOf(event: MessageEvent<string>): Shown {
  const parsed = parse(event.data);
  const data = parsed?.['data'];
  return {
    id: event.lastEventId,
    type: event.type,
    at: typeof parsed?.['at'] === 'string' ? parsed['at'] : '',
    summary: summarize(
      event.type,
      typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {},
    ),
    json: parsed === undefined ? event.data : JSON.stringify(parsed, null, 2),
  };
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
