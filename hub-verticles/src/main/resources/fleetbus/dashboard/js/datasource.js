// The one place that knows how live data reaches the page: the hub's WebSocket API (/api/v1/ws) when it
// answers, REST polling otherwise. Views only see this interface:
//   onNodes(cb) · onHeartbeat(cb) · onApprovals(cb) · onProblem(cb)  → an unsubscribe function
//   refreshNodes() · refreshApprovals() · call(node, tool, args, handlers) → { cancel() } · close()
// handlers: onApproval({callId, approvalId, summary}), onRunning({callId}), onChunk({stream, seq, data}),
//           onResult(result), onError({callId, code, message})
import { startPolling } from './polling-source.js';
import { openSocket } from './socket-source.js';

/** Subscribers per topic; the latest list is replayed to a late subscriber. */
class Feed {
  constructor() {
    this.listeners = new Map();
    this.latest = new Map();
  }

  on(topic, cb, replay) {
    if (!this.listeners.has(topic)) this.listeners.set(topic, new Set());
    this.listeners.get(topic).add(cb);
    if (replay && this.latest.has(topic)) cb(this.latest.get(topic));
    return () => this.listeners.get(topic).delete(cb);
  }

  emit(topic, value) {
    this.latest.set(topic, value);
    for (const cb of this.listeners.get(topic) || []) cb(value);
  }
}

/** {@code pollingOnly} skips the socket (the page's ?live=polling, for a hub behind a proxy without WebSockets). */
export async function connectLive(api, onMode, pollingOnly) {
  const feed = new Feed();
  let transport;
  const usePolling = (why) => {
    transport = startPolling(api, feed);
    onMode(`live: REST polling every ${transport.intervalMs / 1000} s${why ? ` (${why})` : ''}`);
  };
  if (pollingOnly) {
    usePolling('asked for by ?live=polling');
  } else {
    try {
      transport = await openSocket(api, feed, () => usePolling('the WebSocket closed'));
      onMode('live: WebSocket');
    } catch (e) {
      usePolling('the hub offers no WebSocket');
    }
  }
  return {
    onNodes: (cb) => feed.on('nodes', cb, true),
    onHeartbeat: (cb) => feed.on('heartbeat', cb, false),
    onApprovals: (cb) => feed.on('approvals', cb, true),
    onProblem: (cb) => feed.on('problem', cb, true),
    refreshNodes: () => transport.refreshNodes(),
    refreshApprovals: () => transport.refreshApprovals(),
    call: (node, tool, args, handlers) => transport.call(node, tool, args, handlers),
    close: () => transport.close(),
  };
}
