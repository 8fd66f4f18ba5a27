// The official MCP TypeScript SDK client against a real hub and node: initialize (version negotiation),
// tools/list, a tier-1 call, failures as isError, unknown tool as -32602, tier 3 accepted and declined
// through elicitation (with command output as progress), approved elsewhere while the elicitation is open,
// confirm: second-person (the elicitation names who approves; approved elsewhere, or withdrawn), a job followed
// to its end, cancelling a long run (by the client, or elsewhere), and a client without elicitation calling tier 3
// as an MCP task (issue 33).
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema, ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { hubUrl, token, node, run, pass } from './lib/harness.mjs';

const tailFile = process.env.FLEETBUS_TAIL_FILE;
const approverToken = process.env.FLEETBUS_APPROVER_TOKEN;
const writeDir = process.env.FLEETBUS_WRITE_DIR;

/** Approves, as the dev approver (another person), the newest pending approval that matches. */
async function approveElsewhere(matches) {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(new URL('/api/v1/approvals?status=pending', hubUrl), { headers: { Authorization: `Bearer ${approverToken}` } });
    const mine = (await res.json()).approvals.filter(matches);
    if (mine.length) {
      const ok = await fetch(new URL(`/api/v1/approvals/${mine.at(-1).approvalId}/approve`, hubUrl), {
        method: 'POST', headers: { Authorization: `Bearer ${approverToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ reason: 'second person, in CI' }),
      });
      assert.equal(ok.status, 200, await ok.text());
      return;
    }
    await new Promise((r) => setTimeout(r, 50)); // the approval is listed once stored
  }
  throw new Error('no matching pending approval');
}

async function connect(protocolVersion, decisions, prompts, elicit = true) {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', hubUrl), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'fleetbus-ci', version: '1.0.0' }, { capabilities: elicit ? { elicitation: {} } : {} });
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      prompts.push(request.params.message);
      const action = decisions.shift() ?? 'cancel';
      if (typeof action === 'function') {
        return action(request);
      }
      return action === 'accept' ? { action, content: { reason: 'confirmed by the CI script' } } : { action };
    });
  }
  if (protocolVersion) {
    // pin what the client asks for, to check the server's negotiation of the older version too
    const original = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (message.method === 'initialize') {
        message.params.protocolVersion = protocolVersion;
      }
      return original(message, options);
    };
  }
  await client.connect(transport);
  return { client, transport };
}

await run('mcp-client', 150, async () => {
  const decisions = [];
  const prompts = [];

  const older = await connect('2025-06-18', [], [], false);
  assert.equal(older.transport.protocolVersion, '2025-06-18', 'the hub keeps a supported older version');
  const parked = await older.client.callTool({ name: 'run_command', arguments: { node, command: 'echo parked' } });
  assert.equal(parked.isError, false);
  assert.equal(parked.structuredContent.status, 'pending_approval', JSON.stringify(parked));
  assert.match(parked.content[0].text, new RegExp(parked.structuredContent.approvalId));
  const withdrawn = await fetch(new URL(`/api/v1/calls/${parked.structuredContent.callId}/cancel`, hubUrl),
    { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
  assert.equal(withdrawn.status, 200);
  pass('without elicitation a tier-3 result names the pending approval');
  await older.transport.terminateSession();
  await older.client.close();
  pass('initialize negotiates 2025-06-18; DELETE ends the session');

  // issue 33: a 2025-11-25 client without elicitation calls a tier-3 tool as a task and gets its outcome over MCP
  // once a second person approved it over REST (tasks/get while it waits, then tasks/result)
  const polling = await connect(null, [], [], false);
  assert.deepEqual(polling.client.getServerCapabilities().tasks.requests.tools.call, {}, 'the hub offers tasks for tools/call');
  const listed = (await polling.client.listTools()).tools;
  assert.equal(listed.find((t) => t.name === 'run_command').execution.taskSupport, 'optional');
  const seen = [];
  let outcome = null;
  let approving = null;
  for await (const m of polling.client.experimental.tasks.callToolStream({ name: 'run_command',
    arguments: { node, command: 'echo as-a-task' } }, undefined, { task: { ttl: 600000 } })) {
    if (m.type === 'taskCreated' || m.type === 'taskStatus') {
      seen.push(m.task.status);
      approving ??= approveElsewhere((a) => a.args.command === 'echo as-a-task');
    } else if (m.type === 'result') {
      outcome = m.result;
    } else if (m.type === 'error') {
      throw m.error;
    }
  }
  await approving;
  assert.equal(seen[0], 'working', `the task starts working: ${seen}`);
  assert.equal(seen.at(-1), 'completed', `then completes: ${seen}`);
  assert.equal(outcome.isError, false, JSON.stringify(outcome));
  assert.equal(outcome.structuredContent.stdout, 'as-a-task\n', JSON.stringify(outcome));
  assert.ok(outcome._meta['io.modelcontextprotocol/related-task'].taskId, 'tasks/result names its task');
  pass('without elicitation, a tier-3 call as a task: working, approved over REST by a second person, result over MCP');

  const created = await polling.client.request({ method: 'tools/call', params: { name: 'run_command',
    arguments: { node, command: 'echo never-approved' }, task: { ttl: 600000 } } }, CreateTaskResultSchema);
  assert.match(created._meta['io.modelcontextprotocol/model-immediate-response'], /waits for approval/);
  const stopped = await polling.client.experimental.tasks.cancelTask(created.task.taskId);
  assert.equal(stopped.status, 'cancelled', JSON.stringify(stopped));
  const after = await polling.client.experimental.tasks.getTask(created.task.taskId);
  assert.equal(after.status, 'cancelled', JSON.stringify(after));
  await assert.rejects(polling.client.experimental.tasks.getTask('no-such-task'),
    (err) => err instanceof McpError && err.code === -32602);
  pass('tasks/cancel withdraws a waiting call; an unknown task is -32602');
  await polling.transport.terminateSession();
  await polling.client.close();

  const { client, transport } = await connect(null, decisions, prompts);
  assert.equal(transport.protocolVersion, '2025-11-25');
  assert.equal(client.getServerVersion().name, 'fleetbus-hub');
  assert.ok(transport.sessionId, 'the hub assigns an Mcp-Session-Id');
  pass('initialize negotiates 2025-11-25 with a session id');

  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  for (const name of ['list_nodes', 'get_system_info', 'run_command']) {
    assert.ok(byName[name], `tools/list offers ${name}`);
  }
  assert.ok(byName.run_command.inputSchema.required.includes('node'), 'fleet tools take a required node argument');
  assert.ok(byName.run_command.inputSchema.required.includes('command'));
  assert.equal(byName.get_system_info.annotations.readOnlyHint, true);
  assert.equal(byName.run_command.annotations.destructiveHint, true);
  assert.equal(byName.run_command._meta['io.fleetbus/confirm'], 'user', 'tools/list says who confirms');
  assert.equal(byName.write_file._meta['io.fleetbus/confirm'], 'second-person');
  pass(`tools/list: ${tools.length} tools with node argument and annotations`);

  const nodes = await client.callTool({ name: 'list_nodes', arguments: {} });
  assert.ok(nodes.structuredContent.nodes.some((n) => n.nodeId === node && n.online), `${node} is listed online`);
  pass('list_nodes (hub-side tool)');

  const info = await client.callTool({ name: 'get_system_info', arguments: { node } });
  assert.equal(info.isError, false, JSON.stringify(info));
  assert.equal(typeof info.structuredContent, 'object');
  assert.equal(JSON.parse(info.content[0].text).hostname, info.structuredContent.hostname);
  pass(`tier-1 call on ${node}: content + structuredContent`);

  const nowhere = await client.callTool({ name: 'get_system_info', arguments: { node: 'no-such-node' } });
  assert.equal(nowhere.isError, true);
  assert.match(nowhere.content[0].text, /404/);
  const badArgs = await client.callTool({ name: 'get_running_processes', arguments: { node, limit: 'many' } });
  assert.equal(badArgs.isError, true);
  assert.match(badArgs.content[0].text, /400.*limit/);
  pass('tool failures are isError results (404 node, 400 schema)');

  await assert.rejects(client.callTool({ name: 'format_everything', arguments: { node } }),
    (err) => err instanceof McpError && err.code === -32602);
  pass('unknown tool is JSON-RPC -32602');

  decisions.push('accept');
  const progress = [];
  const accepted = await client.callTool({ name: 'run_command', arguments: { node, command: 'echo mcp-accepted' } },
    undefined, { onprogress: (p) => progress.push(p) });
  assert.equal(accepted.isError, false, JSON.stringify(accepted));
  assert.equal(accepted.structuredContent.stdout, 'mcp-accepted\n');
  assert.match(prompts.at(-1), /echo mcp-accepted/, 'the elicitation shows the approval summary');
  assert.ok(progress.some((p) => String(p.message).includes('mcp-accepted')), 'command output arrives as progress');
  pass('tier 3 accepted through elicitation ran, with progress');

  decisions.push('decline');
  const declined = await client.callTool({ name: 'run_command', arguments: { node, command: 'echo mcp-declined' } });
  assert.equal(declined.isError, true, JSON.stringify(declined));
  assert.match(declined.content[0].text, /403.*denied/);
  pass('tier 3 declined through elicitation is denied (403)');

  // confirm: user, but a second person approves elsewhere while the elicitation is still open: the result arrives
  decisions.push(async () => {
    await approveElsewhere((a) => a.args.command === 'echo approved-elsewhere');
    return new Promise(() => {}); // this person never answers
  });
  const elsewhere = await client.callTool({ name: 'run_command', arguments: { node, command: 'echo approved-elsewhere' } });
  assert.equal(elsewhere.isError, false, JSON.stringify(elsewhere));
  assert.equal(elsewhere.structuredContent.stdout, 'approved-elsewhere\n');
  pass('tier 3 approved elsewhere while the elicitation is open returns its result');

  // confirm: second-person (write_file here): the elicitation says who approves; accepting waits for them
  const target = `${writeDir}/second-person-${Date.now()}.txt`;
  decisions.push(async (request) => {
    assert.match(request.params.message, /second person.*approver other than you/s);
    setTimeout(() => approveElsewhere((a) => a.args.path === target).catch((e) => console.error(e)), 200);
    return { action: 'accept', content: {} };
  });
  const written = await client.callTool({ name: 'write_file', arguments: { node, path: target, content: 'four eyes\n' } });
  assert.equal(written.isError, false, JSON.stringify(written));
  assert.ok(prompts.at(-1).includes('second person'), prompts.at(-1));
  pass('confirm: second-person — the elicitation names who approves, the approver\'s decision returns the result');

  decisions.push('decline');
  const withdrawn2 = await client.callTool({ name: 'write_file', arguments: { node, path: `${target}.no`, content: 'x' } });
  assert.equal(withdrawn2.isError, false, JSON.stringify(withdrawn2));
  assert.equal(withdrawn2.structuredContent.status, 'cancelled', JSON.stringify(withdrawn2));
  pass('confirm: second-person — declining withdraws the call (cancelled)');

  // a job followed to its end: its output arrives as progress after job_launch answered, the result when it ended
  decisions.push('accept');
  const jobProgress = [];
  const followed = await client.callTool({ name: 'job_launch', arguments: { node, follow: true,
    command: 'for i in 1 2 3; do echo mcp-job-$i; sleep 0.3; done; exit 4' } },
    undefined, { onprogress: (p) => jobProgress.push(p), resetTimeoutOnProgress: true });
  assert.equal(followed.isError, false, JSON.stringify(followed));
  assert.equal(followed.structuredContent.job.status, 'failed', JSON.stringify(followed));
  assert.equal(followed.structuredContent.status, 'failed', 'the final state at the top, as every job answer has it');
  assert.equal(followed.structuredContent.job.exitCode, 4, JSON.stringify(followed));
  const startedAt = jobProgress.findIndex((p) => String(p.message).startsWith('following job '));
  assert.ok(startedAt >= 0, JSON.stringify(jobProgress));
  const lines = jobProgress.map((p) => String(p.message)).join('');
  for (const i of [1, 2, 3]) {
    assert.ok(lines.includes(`mcp-job-${i}`), `line ${i} arrived as progress: ${lines}`);
  }
  assert.ok(jobProgress.slice(startedAt + 1).some((p) => String(p.message).includes('mcp-job-3')),
    'output kept coming after job_launch answered');
  pass('job_launch with follow: output as progress until the job ended, then its final state');

  if (tailFile) {
    decisions.push('accept');
    const abort = new AbortController();
    const started = Date.now();
    const long = client.callTool({ name: 'run_command', arguments: { node, command: `tail -f ${tailFile}`, timeout_seconds: 120 } },
      undefined, { signal: abort.signal, onprogress: () => abort.abort('enough') });
    await assert.rejects(long, /enough|abort/i);
    assert.ok(Date.now() - started < 60_000, 'the abort ended the request');
    // the hub answers the cancel on the node: the call ends as cancelled
    const calls = await fetch(new URL('/api/v1/approvals?status=approved', hubUrl), { headers: { Authorization: `Bearer ${token}` } });
    const approval = (await calls.json()).approvals.filter((a) => a.args.command?.startsWith('tail -f')).at(-1);
    const record = await fetch(new URL(`/api/v1/calls/${approval.callId}?wait=20`, hubUrl), { headers: { Authorization: `Bearer ${token}` } });
    const body = await record.json();
    assert.equal(record.status, 200, JSON.stringify(body));
    assert.equal(body.status, 'cancelled', JSON.stringify(body));
    assert.equal(body.error ?? null, null, 'a cancel is not an error');
    console.log(`cancelled-call: ${approval.callId}`);
    pass('notifications/cancelled stops the long run on the node');

    // cancelled by someone else (REST): the MCP caller gets a cancelled result, not an error
    decisions.push('accept');
    let stopping = null;
    const stopElsewhere = async () => {
      const list = await fetch(new URL('/api/v1/approvals?status=approved', hubUrl), { headers: { Authorization: `Bearer ${token}` } });
      const mine = (await list.json()).approvals.filter((a) => a.args.command?.startsWith('tail -f') && a.callId !== approval.callId);
      const res = await fetch(new URL(`/api/v1/calls/${mine.at(-1).callId}/cancel`, hubUrl),
        { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200, await res.text());
    };
    const stopped = await client.callTool({ name: 'run_command', arguments: { node, command: `tail -f ${tailFile}`, timeout_seconds: 120 } },
      undefined, { onprogress: () => { stopping ??= stopElsewhere(); } });
    await stopping;
    assert.equal(stopped.isError, false, JSON.stringify(stopped));
    assert.equal(stopped.structuredContent.status, 'cancelled', JSON.stringify(stopped));
    assert.equal(stopped.structuredContent.cancelledBy, 'dev-admin', JSON.stringify(stopped));
    assert.match(stopped.content[0].text, /^cancelled: run_command was stopped/);
    pass('a call cancelled elsewhere answers the MCP caller with a cancelled result');
  }

  await transport.terminateSession();
  await client.close();
});
