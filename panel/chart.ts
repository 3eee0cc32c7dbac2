/**
 * A bar chart drawn as SVG, no chart library: one bar per bucket, stacked by status class, a
 * y-axis with its maximum, and the first and last bucket's time under the x-axis. Sized by the
 * viewBox, so CSS decides its width.
 */
import { h } from 'preact';
import type { View } from './ui.ts';

/** One minute of GET /admin/v1/status's `requests.per_minute`: its start and counts by class. */
export interface Bucket {
  /** The minute's start, ISO 8601. */
  minute: string;
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '5xx': number;
}

/** Series drawn bottom to top; each has a CSS class `bar-<class>`. */
const CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
const WIDTH = 600;
const HEIGHT = 160;
const LEFT = 36;
const BOTTOM = 18;

export function RequestChart(props: { buckets: Bucket[]; label: string }): View {
  const { buckets } = props;
  const total = (bucket: Bucket) => CLASSES.reduce((sum, name) => sum + (bucket[name] ?? 0), 0);
  const max = Math.max(1, ...buckets.map(total));
  const plotWidth = WIDTH - LEFT;
  const plotHeight = HEIGHT - BOTTOM;
  const barWidth = buckets.length === 0 ? 0 : plotWidth / buckets.length;
  const bars = buckets.flatMap((bucket, index) =>
    stack(bucket, index * barWidth + LEFT, barWidth, plotHeight, max),
  );
  return h(
    'svg',
    {
      class: 'chart',
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: 'img',
      'aria-label': props.label,
    },
    h('line', { class: 'axis', x1: LEFT, y1: 0, x2: LEFT, y2: plotHeight }),
    h('line', { class: 'axis', x1: LEFT, y1: plotHeight, x2: WIDTH, y2: plotHeight }),
    h('text', { class: 'tick', x: LEFT - 4, y: 10, 'text-anchor': 'end' }, String(max)),
    h('text', { class: 'tick', x: LEFT - 4, y: plotHeight, 'text-anchor': 'end' }, '0'),
    ...bars,
    buckets.length > 0 ? timeLabel(buckets[0]!.minute, LEFT, 'start') : null,
    buckets.length > 0 ? timeLabel(buckets[buckets.length - 1]!.minute, WIDTH, 'end') : null,
  );
}

/** One bucket's bars, stacked by class, each with a tooltip. */
function stack(bucket: Bucket, x: number, width: number, plotHeight: number, max: number): View[] {
  let top = plotHeight;
  const bars: View[] = [];
  for (const name of CLASSES) {
    const count = bucket[name] ?? 0;
    if (count === 0) continue;
    const height = (count / max) * plotHeight;
    top -= height;
    bars.push(
      h(
        'rect',
        { class: `bar-${name}`, x: x + 0.5, y: top, width: Math.max(width - 1, 0.5), height },
        h('title', null, `${bucket.minute}: ${count} × ${name}`),
      ),
    );
  }
  return bars;
}

function timeLabel(iso: string, x: number, anchor: 'start' | 'end'): View {
  const date = new Date(iso);
  const text = Number.isNaN(date.getTime())
    ? iso
    : `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
  return h('text', { class: 'tick', x, y: HEIGHT - 4, 'text-anchor': anchor }, text);
}
