// Live data over the hub's WebSocket API: subscriptions to nodes, approvals and heartbeats, and calls
// with streamed output. Resolves once the socket is authenticated; rejects when the hub has no socket.

const enc = encodeURIComponent;
const OPEN_TIMEOUT_MS = 4000;
const NODES_EVERY_MS = 1000;

export function openSocket(api, feed, onLost) {
  return new Promise((resolve, reject) => {
    const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
    let ws;
    try {
      ws = new WebSocket(`${scheme}://${window.location.host}/api/v1/ws`);
    } catch (e) {
      reject(e);
      return;
    }
    const calls = new Map();
    let nextId = 0;
    let ready = false;
    let closing = false;
    let nodes = [];
    let nodesTimer = null;
    const timer = setTimeout(() => fail(new Error('the WebSocket did not answer')), OPEN_TIMEOUT_MS);

    function fail(err) {
      if (ready) return;
      clearTimeout(timer);
      closing = true;
      ws.close();
      reject(err);
    }

    const send = (msg) => ws.send(JSON.stringify(msg));

    async function refreshNodes() {
      const { body } = await api.get('/api/v1/nodes');
      nodes = body.nodes || [];
      feed.emit('nodes', nodes);
    }

    async function refreshApprovals() {
      const { body } = await api.get('/api/v1/approvals');
      feed.emit('approvals', body.approvals || []);
    }

    const guarded = (fn) => fn().then(() => feed.emit('problem', null), (e) => feed.emit('problem', e.message));

    // heartbeats patch the node list in place; the list goes out at most once a second
    function onHeartbeat(hb) {
      const n = nodes.find((x) => x.nodeId === hb.nodeId);
      if (n) {
        n.metrics = hb.metrics;
        n.lastHeartbeat = Date.now();
        n.lastSeen = n.lastHeartbeat;
      }
      feed.emit('heartbeat', { nodeId: hb.nodeId, at: hb.sentAt, metrics: hb.metrics });
      if (!nodesTimer) {
        nodesTimer = setTimeout(() => {
          nodesTimer = null;
          feed.emit('nodes', nodes);
        }, NODES_EVERY_MS);
      }
    }

    function onEvent(topic, data) {
      if (topic === 'heartbeats') onHeartbeat(data);
      else if (topic === 'nodes') guarded(refreshNodes);
      else if (topic === 'approvals') guarded(refreshApprovals);
    }

    function onCallMessage(msg) {
      const h = calls.get(String(msg.id));
      if (!h) return;
      if (msg.callId) h.callId = msg.callId;
      switch (msg.type) {
        case 'approval_required':
          h.onApproval?.({ callId: msg.callId, approvalId: msg.approvalId, summary: msg.summary });
          break;
        case 'chunk':
          if (!h.running) {
            h.running = true;
            h.onRunning?.({ callId: h.callId });
          }
          h.onChunk?.({ stream: msg.stream, seq: msg.seq, data: msg.data });
          break;
        case 'result':
          calls.delete(String(msg.id));
          h.onResult?.(msg);
          break;
        case 'error':
          calls.delete(String(msg.id));
          h.onError?.({ callId: msg.callId || h.callId, code: msg.code, message: msg.message });
          break;
        default:
      }
    }

    const transport = {
      intervalMs: 0,
      refreshNodes,
      refreshApprovals,
      call(node, tool, args, handlers) {
        const id = `c${++nextId}`;
        const h = { ...handlers, callId: null, running: false };
        calls.set(id, h);
        send({ type: 'call', id, node, tool, args });
        return {
          get callId() {
            return h.callId;
          },
          cancel: () => (h.callId ? api.post(`/api/v1/calls/${enc(h.callId)}/cancel`, {}) : Promise.resolve()),
        };
      },
      close() {
        closing = true;
        ws.close();
      },
    };

    ws.onopen = () => send({ type: 'auth', token: api.token });
    ws.onerror = () => fail(new Error('the hub refused the WebSocket'));
    ws.onclose = () => {
      if (!ready) {
        fail(new Error('the WebSocket closed'));
        return;
      }
      for (const h of calls.values()) {
        h.onError?.({ callId: h.callId, code: 0, message: 'the connection to the hub was lost; the call itself goes on' });
      }
      calls.clear();
      if (!closing) onLost();
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch (e) {
        return;
      }
      if (msg.type === 'authenticated') {
        ready = true;
        clearTimeout(timer);
        ['nodes', 'approvals', 'heartbeats'].forEach((topic) => send({ type: 'subscribe', topic }));
        guarded(refreshNodes);
        guarded(refreshApprovals);
        resolve(transport);
      } else if (msg.type === 'event') {
        onEvent(msg.topic, msg.data || {});
      } else if (msg.type === 'error' && msg.id == null && !ready) {
        fail(new Error(msg.message));
      } else if (msg.id != null) {
        onCallMessage(msg);
      }
    };
  });
}
