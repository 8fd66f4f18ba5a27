// @vertx/eventbus-bridge-client.js over SockJS against a real hub: a tool call through the bridge's
// call address, a refused direct send to a node address, a refused call without a token, and live heartbeats.
import assert from 'node:assert/strict';
import EventBus from '@vertx/eventbus-bridge-client.js';
import { hubUrl, token, node, run, pass } from './lib/harness.mjs';

function open() {
  const eb = new EventBus(new URL('/eventbus', hubUrl).toString());
  eb.enableReconnect(false);
  return new Promise((resolve, reject) => {
    eb.onopen = () => resolve(eb);
    eb.onclose = (e) => reject(new Error(`bridge closed before it opened: ${e && e.reason}`));
  });
}

function request(eb, address, body, headers) {
  return new Promise((resolve) => eb.send(address, body, headers, (err, reply) => resolve({ err, reply })));
}

await run('eventbus-bridge', 90, async () => {
  const eb = await open();
  const errors = [];
  eb.onerror = (e) => errors.push(e);
  const auth = { authorization: `Bearer ${token}` };

  const heartbeats = [];
  const twoBeats = new Promise((resolve) => {
    eb.registerHandler('fleet.heartbeat', auth, (err, msg) => {
      if (!err && msg.body.nodeId === node) {
        heartbeats.push(msg.body);
        if (heartbeats.length === 2) resolve();
      }
    });
  });

  const ok = await request(eb, 'fleet.bridge.call', { node, tool: 'get_agent_health', args: {} }, auth);
  assert.equal(ok.err, null, JSON.stringify(ok.err));
  assert.equal(ok.reply.body.status, 'ok');
  assert.equal(ok.reply.body.data.nodeId, node);
  pass('tool call through fleet.bridge.call');

  const pending = await request(eb, 'fleet.bridge.call', { node, tool: 'run_command', args: { command: 'echo bridged' } }, auth);
  assert.equal(pending.reply.body.status, 'pending_approval');
  assert.ok(pending.reply.body.approvalId);
  pass('tier 3 through the bridge parks for approval');

  const noToken = await request(eb, 'fleet.bridge.call', { node, tool: 'get_agent_health', args: {} }, {});
  assert.equal(noToken.err.failureCode, 401, JSON.stringify(noToken.err));
  const badArgs = await request(eb, 'fleet.bridge.call', { node, tool: 'get_running_processes', args: { limit: 0 } }, auth);
  assert.equal(badArgs.err.failureCode, 400);
  pass('no token → 401, bad arguments → 400 (same checks as REST)');

  const before = errors.length;
  const refused = new Promise((resolve) => {
    const previous = eb.onerror;
    eb.onerror = (e) => {
      previous(e);
      resolve(e);
    };
  });
  eb.send(`fleet.node.${node}.call`, { tool: 'get_agent_health' }, auth);
  const denial = await refused;
  // the hub's guard refuses before the bridge's own deny-by-default list would (which says access_denied)
  assert.ok(['rejected', 'access_denied'].includes(denial.body), JSON.stringify(denial));
  assert.equal(errors.length, before + 1);
  pass('a direct send to a node address is refused');

  await twoBeats;
  assert.ok(heartbeats[1].seq > heartbeats[0].seq);
  assert.equal(heartbeats[0].credential, undefined, 'heartbeats reach clients without credentials');
  assert.equal(typeof heartbeats[0].metrics.cpuPercent, 'number');
  pass(`live heartbeats from ${node} (seq ${heartbeats[0].seq}, ${heartbeats[1].seq})`);

  eb.close();
});
