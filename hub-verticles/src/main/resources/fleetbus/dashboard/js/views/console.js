// Console: pick a node and a tool, fill in the form made from the tool's JSON Schema, run it, and watch
// the output stream in (over the WebSocket) and the result arrive.
import { h } from '../dom.js';
import { schemaForm } from '../schema-form.js';

export function consoleView(live, api) {
  const nodeSelect = h('select', { id: 'console-node', 'aria-label': 'node' });
  const toolSelect = h('select', { id: 'console-tool', 'aria-label': 'tool' });
  const description = h('p', { class: 'help', id: 'console-description' });
  const formSlot = h('div');
  const run = h('button', { class: 'primary', id: 'console-run', type: 'submit' }, 'Run');
  const cancel = h('button', { id: 'console-cancel', type: 'button', disabled: true }, 'Cancel');
  const state = h('p', { class: 'callstate', id: 'console-state' }, 'Pick a node and a tool.');
  const output = h('pre', { class: 'output', id: 'console-output', hidden: true });
  const result = h('pre', { class: 'result', id: 'console-result', hidden: true });
  const form = h('form', { id: 'console-form' },
    h('label', { for: 'console-node' }, 'Node'), nodeSelect,
    h('label', { for: 'console-tool' }, 'Tool'), toolSelect, description,
    formSlot,
    h('div', { class: 'run-row' }, run, cancel));
  const element = h('div', { class: 'console' },
    h('div', { class: 'card' }, h('h2', {}, 'Run a tool'), form),
    h('div', { class: 'card' }, h('h2', {}, 'Output'), state, output, result));

  let tools = [];
  let nodes = [];
  let current = null; // the form of the chosen tool
  let running = null; // the call in flight

  api.get('/api/v1/tools').then(({ body }) => {
    tools = (body.tools || []).filter((t) => t.runsOn !== 'hub').sort((a, b) => a.name.localeCompare(b.name));
    fillTools();
  }).catch((e) => setState('error', `cannot list tools: ${e.message}`));

  live.onNodes((list) => {
    const before = nodeSelect.value;
    nodes = list;
    nodeSelect.replaceChildren(...list.map((n) => h('option', { value: n.nodeId, disabled: !n.online },
      `${n.nodeId}${n.online ? '' : ' (offline)'} · ${n.capabilityTier}`)));
    const keep = list.find((n) => n.nodeId === before && n.online) || list.find((n) => n.online);
    if (keep) nodeSelect.value = keep.nodeId;
    if (keep && keep.nodeId !== before) fillTools();
  });

  nodeSelect.addEventListener('change', fillTools);
  toolSelect.addEventListener('change', showForm);

  function fillTools() {
    const node = nodes.find((n) => n.nodeId === nodeSelect.value);
    const served = node && Array.isArray(node.tools) ? new Set(node.tools) : null;
    const before = toolSelect.value;
    const usable = tools.filter((t) => !served || served.has(t.name));
    toolSelect.replaceChildren(...usable.map((t) => h('option', { value: t.name },
      `${t.name}${t.tier >= 3 ? ' (tier 3: needs approval)' : ` (tier ${t.tier})`}`)));
    if (usable.some((t) => t.name === before)) toolSelect.value = before;
    showForm();
  }

  function showForm() {
    const tool = tools.find((t) => t.name === toolSelect.value);
    description.textContent = tool ? tool.description : '';
    current = tool ? schemaForm(tool.inputSchema, 'arg') : null;
    formSlot.replaceChildren(current ? current.element : '');
  }

  function setState(kind, text) {
    state.className = `callstate ${kind}`;
    state.textContent = text;
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!current || running) return;
    let args;
    try {
      args = current.read();
    } catch (e) {
      setState('error', e.message);
      return;
    }
    const node = nodeSelect.value;
    const tool = toolSelect.value;
    output.replaceChildren();
    output.hidden = true;
    delete output.dataset.streamed;
    result.hidden = true;
    setState('running', `running ${tool} on ${node}…`);
    run.disabled = true;
    cancel.disabled = false;
    const finish = () => {
      live.refreshApprovals();
      running = null;
      run.disabled = false;
      cancel.disabled = true;
    };
    running = live.call(node, tool, args, {
      onApproval: (a) => setState('waiting', `waiting for approval ${a.approvalId} (Approvals view); call ${a.callId}`),
      onRunning: () => {
        setState('running', `approved; running ${tool} on ${node}…`);
        live.refreshApprovals();
      },
      onChunk: (c) => {
        output.hidden = false;
        output.dataset.streamed = 'true';
        output.append(h('span', { class: c.stream }, c.data));
        output.scrollTop = output.scrollHeight;
      },
      onResult: (r) => {
        finish();
        if (r.status === 'cancelled') {
          setState('cancelled', `cancelled · ${(r.data && r.data.message) || 'stopped'} · call ${r.callId}`);
          return;
        }
        setState('ok', `ok · ${r.nodeId || node} · ${r.durationMs ?? '?'} ms · call ${r.callId}`);
        showResult(r.data);
      },
      onError: (e) => {
        finish();
        setState('error', `${e.code}: ${e.message}`);
      },
    });
  });

  cancel.addEventListener('click', () => {
    if (running) running.cancel().catch((e) => setState('error', `cancel failed: ${e.message}`));
  });

  function showResult(data) {
    if (data && typeof data.stdout === 'string' && output.childNodes.length === 0 && (data.stdout || data.stderr)) {
      output.append(h('span', { class: 'stdout' }, data.stdout));
      if (data.stderr) output.append(h('span', { class: 'stderr' }, data.stderr));
      output.hidden = false;
    }
    result.textContent = JSON.stringify(data, null, 2);
    result.hidden = false;
  }

  return { element, shown: () => {} };
}
