// Small DOM helpers. Text always goes in as text nodes: nothing from the API is parsed as HTML.

export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === 'class') el.className = value;
    else if (key === 'value') el.value = value;
    else if (key === 'checked') el.checked = Boolean(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function svg(tag, attrs) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [key, value] of Object.entries(attrs || {})) el.setAttribute(key, String(value));
  return el;
}

/** "just now", "42 s ago", "5 min ago", "3 h ago", "2 d ago" ("in 5 min" ahead); "never" for no moment. */
export function ago(ms, now = Date.now()) {
  if (!ms) return 'never';
  const s = Math.round((now - ms) / 1000);
  if (Math.abs(s) < 5) return 'just now';
  const a = Math.abs(s);
  const span = a < 90 ? `${a} s` : a < 90 * 60 ? `${Math.round(a / 60)} min` : a < 36 * 3600 ? `${Math.round(a / 3600)} h`
    : `${Math.round(a / 86400)} d`;
  return s > 0 ? `${span} ago` : `in ${span}`;
}

/** "2026-11-25 18:03:12" in the browser's zone. */
export function stamp(ms) {
  const d = new Date(ms);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** "2026-11-25 18:03:12 (4 min ago)", or "—". */
export function when(ms, now = Date.now()) {
  return ms ? `${stamp(ms)} (${ago(ms, now)})` : '—';
}

/** An uptime: "3 d 4 h", "1 h 12 min", "40 s". */
export function uptime(seconds) {
  const d = Math.floor(seconds / 86400);
  const hrs = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  if (d > 0) return `${d} d ${hrs} h`;
  if (hrs > 0) return `${hrs} h ${m} min`;
  return m > 0 ? `${m} min` : `${Math.floor(seconds)} s`;
}

/** "4:05" style countdown to a moment, or "expired". */
export function countdown(untilMs, now = Date.now()) {
  const s = Math.round((untilMs - now) / 1000);
  if (s <= 0) return 'expired';
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, '0')} left`;
}
