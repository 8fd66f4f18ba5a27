import { h, svg } from './dom.js';

/**
 * A small SVG line of the values, newest on the right, with its scale beside it (top and bottom of the line).
 * With {@code max} the scale is 0..max (CPU %); without, it spans the values seen, so small changes in memory or
 * disk still show, and the labels say how small. {@code format(value, span)} writes a scale label.
 */
export function sparkline(values, { max, width = 110, height = 26, label = '', format = (v) => String(v) } = {}) {
  const line = svg('svg', { class: 'spark', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label });
  const wrap = h('span', { class: 'spark-wrap' }, line);
  if (values.length === 0) return wrap;
  const low = max ? 0 : Math.min(...values);
  const high = max || Math.max(...values);
  const span = high - low;
  const step = values.length > 1 ? (width - 4) / (values.length - 1) : 0;
  const y = (v) => (span > 0 ? height - 3 - ((Math.min(v, high) - low) / span) * (height - 6) : height / 2).toFixed(1);
  const points = values.map((v, i) => `${(2 + i * step).toFixed(1)},${y(v)}`);
  line.append(svg('polyline', { points: points.join(' ') }));
  const last = points[points.length - 1].split(',');
  line.append(svg('circle', { cx: last[0], cy: last[1], r: 2 }));
  line.setAttribute('aria-label', `${label}: ${format(low, span)} to ${format(high, span)}`);
  wrap.append(h('span', { class: 'spark-scale', title: max ? 'scale: 0 to the maximum' : 'scale: lowest to highest value seen' },
    h('span', { class: 'spark-max' }, format(high, span)),
    h('span', { class: 'spark-min' }, format(low, span))));
  return wrap;
}
