// Live data by REST polling: nodes and approvals every couple of seconds, heartbeats derived from each
// node's last heartbeat, calls as POST then GET /api/v1/calls/{id}?wait=… until they end.

const POLL_MS = 2000;
const enc = encodeURIComponent;

export function startPolling(api, feed) {
  let stopped = false;
  const lastBeat = new Map();

  async function refreshNodes() {
    const { body } = await api.get('/api/v1/nodes');
    const nodes = body.nodes || [];
    for (const n of nodes) {
      if (n.metrics && n.lastHeartbeat && lastBeat.get(n.nodeId) !== n.lastHeartbeat) {
        lastBeat.set(n.nodeId, n.lastHeartbeat);
        feed.emit('heartbeat', { nodeId: n.nodeId, at: n.lastHeartbeat, metrics: n.metrics });
      }
    }
    feed.emit('nodes', nodes);
  }

  async function refreshApprovals() {
    const { body } = await api.get('/api/v1/approvals');
    feed.emit('approvals', body.approvals || []);
  }

  function every(fn) {
    const tick = async () => {
      if (stopped) return;
      try {
        await fn();
        feed.emit('problem', null);
      } catch (e) {
        feed.emit('problem', e.message);
      }
      if (!stopped) setTimeout(tick, POLL_MS);
    };
    tick();
  }

  every(refreshNodes);
  every(refreshApprovals);
  return {
    intervalMs: POLL_MS,
    refreshNodes,
    refreshApprovals,
    call: (node, tool, args, handlers) => restCall(api, node, tool, args, handlers),
    close() {
      stopped = true;
    },
  };
}

/** One call over REST: no streamed output, the result when the call ends. */
export function restCall(api, node, tool, args, h) {
  let callId = null;
  let done = false;
  const fail = (e) => {
    if (!done) h.onError?.({ callId, code: e.code, message: e.message });
    done = true;
  };
  (async () => {
    const first = await api.post(`/api/v1/nodes/${enc(node)}/tools/${enc(tool)}`, args);
    callId = first.body.callId;
    if (first.status !== 202) {
      done = true;
      h.onResult?.(first.body);
      return;
    }
    h.onApproval?.({ callId, approvalId: first.body.approvalId, summary: await summaryOf(api, first.body.approvalId) });
    let running = false;
    while (!done) {
      const rec = await api.get(`/api/v1/calls/${enc(callId)}?wait=20`);
      if (rec.status === 200) {
        done = true;
        h.onResult?.(rec.body);
      } else if (rec.body.status === 'running' && !running) {
        running = true;
        h.onRunning?.({ callId });
      }
    }
  })().catch(fail);
  return {
    get callId() {
      return callId;
    },
    cancel: () => (callId ? api.post(`/api/v1/calls/${enc(callId)}/cancel`, {}) : Promise.resolve()),
  };
}

async function summaryOf(api, approvalId) {
  try {
    const { body } = await api.get('/api/v1/approvals?status=pending');
    const a = (body.approvals || []).find((x) => x.approvalId === approvalId);
    return a ? a.summary : null;
  } catch (e) {
    return null;
  }
}
