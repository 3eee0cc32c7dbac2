/**
 * A live tail of every event (GET /admin/v1/events, server-sent events with the session
 * cookie). EventSource reconnects by itself with Last-Event-ID, so a restart of the daemon
 * resumes the tail without a gap. The page keeps the newest 200 events.
 */
import { h } from 'preact';
import type { View } from '../ui.ts';
import { useEffect, useState } from 'preact/hooks';
import { ADMIN } from '../api.ts';

interface Shown {
  id: string;
  type: string;
  data: string;
}

const KEEP = 200;

export function EventsPage(): View {
  const [events, setEvents] = useState<Shown[]>([]);
  const [state, setState] = useState('connecting');
  const [paused, setPaused] = useState(false);
  useEffect(() => {
    if (paused) return;
    const source = new EventSource(`${ADMIN}/events`, { withCredentials: true });
    const add = (event: MessageEvent<string>) => {
      // The connection's own `error` (no data) is a state change, shown by onerror.
      if (typeof event.data !== 'string') return;
      setEvents((shown) =>
        [{ id: event.lastEventId, type: event.type, data: event.data }, ...shown].slice(0, KEEP),
      );
    };
    source.onopen = () => setState('live');
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
    source.onmessage = add;
    // A named event (`event: player.joined`) reaches only a listener for its type.
    for (const type of [...MODGATE_EVENT_TYPES, 'stream.closed', 'error'])
      source.addEventListener(type, add as EventListener);
    return () => source.close();
  }, [paused]);
  return h(
    'div',
    null,
    h(
      'p',
      null,
      h('span', { class: `badge ${state}`, 'data-testid': 'tail-state' }, paused ? 'paused' : state),
      h('button', { type: 'button', onClick: () => setPaused(!paused) }, paused ? 'Resume' : 'Pause'),
      h('button', { type: 'button', class: 'quiet', onClick: () => setEvents([]) }, 'Clear'),
    ),
    h(
      'ol',
      { class: 'tail', 'aria-live': 'polite' },
      events.map((event) =>
        h(
          'li',
          { key: `${event.id}-${event.type}`, 'data-testid': 'event-row' },
          h('span', { class: 'mono id' }, event.id),
          h('span', { class: 'type' }, event.type),
          h('code', null, event.data),
        ),
      ),
    ),
  );
}
