// Drives the hub's dashboard in Debian's Chromium, step by step with the JUnit test that owns the fleet
// (DashboardBrowserTest): it prints "STEP <name>" lines, and the test starts or kills nodes when it
// reads them. Every wait is for something on the page, with a deadline; a failure leaves failure.png.
//
// env: HUB_URL, ADMIN_TOKEN, APPROVER_TOKEN, EDIT_FILE (a file on node n1 the test may propose to edit),
//      SCREENSHOTS (folder), CHROMIUM (default /usr/bin/chromium)
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { checkWidths, pagesToCheck } from './widths.mjs';

const hub = need('HUB_URL');
const adminToken = need('ADMIN_TOKEN');
const approverToken = need('APPROVER_TOKEN');
const shots = need('SCREENSHOTS');
const editFile = need('EDIT_FILE');
const WAIT = { timeout: 60_000 };
mkdirSync(shots, { recursive: true });

function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

const step = (name) => console.log(`STEP ${name}`);

// the flags the machine's notes give for a root, offline Chromium: no sandbox, no GPU, no calls home
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
let page;
try {
  const admin = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await admin.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // a refused resource is logged by the browser itself (the audit 404 on a hub without it, the socket probe)
  const expected = /^(Failed to load resource|WebSocket connection to)/;
  page.on('console', (m) => { if (m.type() === 'error' && !expected.test(m.text())) problems.push(`console: ${m.text()}`); });

  // sign in by pasting the token
  await page.goto(`${hub}/`);
  await page.locator('#sign-in').waitFor(WAIT);
  await page.screenshot({ path: join(shots, '0-sign-in.png') });
  await page.fill('#token-input', adminToken);
  await page.click('#sign-in-form button[type=submit]');
  // the overview first: nodes online, approvals waiting, confinement, recent failures
  await page.locator('#overview-nodes .big').first().waitFor(WAIT);
  await page.waitForFunction(() => document.getElementById('whoami').textContent.includes('admin'), null, WAIT);
  await page.click('#nav a[data-view=nodes]');
  await page.locator('#nodes-table').waitFor(WAIT);
  if (page.url().includes('token')) throw new Error(`the token is in the address: ${page.url()}`);
  step('signed-in');

  // a real node goes online and its heartbeats draw the sparklines; a second one is killed and greys out
  await page.waitForFunction(() => {
    const row = document.querySelector('tr[data-node="n1"].online');
    const line = row && row.querySelector('td.cpu polyline');
    return line && line.getAttribute('points').split(' ').length >= 3
      && /\d+\.\d %/.test(row.querySelector('td.cpu').textContent)
      && /GB/.test(row.querySelector('td.memory').textContent);
  }, null, WAIT);
  await page.locator('tr[data-node="n2"].online').waitFor(WAIT);
  // the sudo node says what the kernel lets its processes do (unconfined shown as a warning)
  const confined = await page.locator('tr[data-node="n1"] .confinement').textContent(WAIT);
  if (!/^(landlock-strict|unconfined \(kernel without Landlock\))$/.test(confined)) {
    throw new Error(`n1's confinement shows as "${confined}"`);
  }
  step('nodes-online');
  await page.waitForFunction(() => {
    const row = document.querySelector('tr[data-node="n2"].offline');
    return row && row.querySelector('td.seen').textContent.startsWith('last seen');
  }, null, WAIT);
  await page.waitForFunction(() => document.querySelector('tr[data-node="n1"] td.cpu polyline')
    .getAttribute('points').split(' ').length >= 6, null, WAIT);
  await page.screenshot({ path: join(shots, '1-nodes.png') });
  step('nodes-seen');

  // each sparkline says its scale: CPU 0-100 %, memory and disk from the lowest to the highest value seen
  const scale = (cell) => page.evaluate((c) => {
    const td = document.querySelector(`tr[data-node="n1"] td.${c}`);
    return [td.querySelector('.spark-max').textContent, td.querySelector('.spark-min').textContent];
  }, cell);
  const [cpuMax, cpuMin] = await scale('cpu');
  if (cpuMax !== '100 %' || cpuMin !== '0 %') throw new Error(`CPU scale ${cpuMin}..${cpuMax}`);
  const [memMax, memMin] = await scale('memory');
  if (!/^\d+\.\d+ %$/.test(memMax) || !/^\d+\.\d+ %$/.test(memMin) || parseFloat(memMax) < parseFloat(memMin)) {
    throw new Error(`memory scale ${memMin}..${memMax}`);
  }
  const [diskMax, diskMin] = await scale('disk');
  if (!/^\d+\.\d+ GB$/.test(diskMax) || !/^\d+\.\d+ GB$/.test(diskMin) || parseFloat(diskMax) < parseFloat(diskMin)) {
    throw new Error(`disk scale ${diskMin}..${diskMax}`);
  }

  // search and filters narrow the list: a label, the state, the tier, and nothing at all
  await page.fill('#nodes-search', 'site=lab');
  await shownNodes(page, ['n2']);
  if (!(await page.textContent('#nodes-summary')).includes('1 shown')) throw new Error('the summary does not count what is shown');
  await page.screenshot({ path: join(shots, '1b-nodes-filtered.png') });
  await page.fill('#nodes-search', '');
  await page.selectOption('#nodes-state', 'online');
  await shownNodes(page, ['n1']);
  await page.selectOption('#nodes-state', '');
  await page.selectOption('#nodes-tier', 'unprivileged');
  await shownNodes(page, ['n2']);
  await page.selectOption('#nodes-tier', '');
  await page.fill('#nodes-search', 'SUDO linux');
  await shownNodes(page, ['n1']);
  await page.fill('#nodes-search', 'no-such-node');
  await shownNodes(page, []);
  await page.locator('#nodes-table tr.none', { hasText: 'No node matches' }).waitFor(WAIT);
  await page.fill('#nodes-search', '');
  await shownNodes(page, ['n1', 'n2']);
  step('nodes-filtered');

  // console: a tier-1 tool, form made from its schema, result shown
  await page.click('#nav a[data-view=console]');
  await page.selectOption('#console-node', 'n1');
  await page.selectOption('#console-tool', 'get_running_processes');
  await page.fill('#arg-limit', '5');
  await page.click('#console-run');
  await page.waitForFunction(() => document.getElementById('console-state').className.includes('ok'), null, WAIT);
  const processes = JSON.parse(await page.textContent('#console-result'));
  if (!Array.isArray(processes.processes) || processes.processes.length === 0 || processes.processes.length > 5) {
    throw new Error(`get_running_processes gave ${JSON.stringify(processes).slice(0, 200)}`);
  }
  await page.screenshot({ path: join(shots, '2-console-tier1.png') });
  step('tier1-ran');

  // the node's page: what the hub knows, what the machine says of itself, its tools, lifecycle and recent calls
  await page.click('#nav a[data-view=nodes]');
  await page.click('tr[data-node="n1"] a.node-link');
  await page.waitForFunction(() => window.location.hash === '#node/n1'
    && document.querySelector('#nav a.active').dataset.view === 'nodes', null, WAIT);
  await page.waitForFunction(() => {
    const host = document.getElementById('node-hostname');
    return host && host.textContent.length > 0;
  }, null, WAIT);
  const host = await page.textContent('#node-hostname');
  if (host !== hostname() && !host.startsWith(`${hostname()}.`)) throw new Error(`n1's host name shows as "${host}"`);
  const addresses = await page.textContent('#node-addresses');
  if (!addresses.includes('lo: 127.0.0.1/8')) throw new Error(`n1's addresses show as "${addresses}"`);
  await page.waitForFunction(() => /^\d+ (s|min|h \d+ min|d \d+ h)$/.test(document.getElementById('node-uptime').textContent)
    && /^\d+\.\d\d$/.test(document.getElementById('node-load').textContent), null, WAIT);
  if (!(await page.textContent('#node-state')).includes('online')) throw new Error('n1 is not shown online on its page');
  for (const tool of ['run_command', 'get_system_info', 'edit_file']) {
    await page.locator(`#node-tools [data-tool="${tool}"]`).waitFor(WAIT);
  }
  if (/null|undefined/.test(await page.textContent('#node-page'))) throw new Error('the node page shows null or undefined');
  const steps = await page.textContent('#node-lifecycle');
  if (!steps.includes('registered') || !steps.includes('online')) throw new Error(`n1's lifecycle: ${steps}`);
  const listed = page.locator('#node-calls tbody tr', { hasText: 'get_running_processes' }).first();
  await listed.waitFor(WAIT);
  if (!/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/.test(await listed.textContent())) throw new Error('a recent call without its date');
  await page.screenshot({ path: join(shots, '7-node.png'), fullPage: true });
  // from a recent call to its output
  await listed.locator('a.call-link').click();
  await page.waitForFunction(() => window.location.hash.startsWith('#call/')
    && document.getElementById('call-state').className.includes('ok'), null, WAIT);
  const listedOutput = JSON.parse(await page.textContent('#call-result'));
  if (!Array.isArray(listedOutput.processes) || listedOutput.processes.length > 5) {
    throw new Error(`the call page shows ${JSON.stringify(listedOutput).slice(0, 200)}`);
  }
  // an offline node's page says so, and asks the node nothing
  await page.evaluate(() => { window.location.hash = '#node/n2'; });
  await page.waitForFunction(() => document.getElementById('node-state')?.textContent.includes('offline')
    && document.getElementById('node-machine-note').textContent.includes('offline'), null, WAIT);
  await page.click('#nav a[data-view=console]');
  step('node-page');

  // console: a tier-3 file edit waits for a person, who sees the diff
  await page.selectOption('#console-tool', 'edit_file');
  await page.fill('#arg-path', editFile);
  await page.fill('#arg-target_content', 'maintenance: none');
  await page.fill('#arg-replacement_content', 'maintenance: saturday 02:00');
  await page.click('#console-run');
  await waitingForApproval(page);

  // one's own request has no Approve button, and says why
  await page.click('#nav a[data-view=approvals]');
  const ownCard = page.locator('#pending-approvals .approval', { hasText: 'edit_file' });
  await ownCard.locator('.own-request', { hasText: 'You asked for this: another approver must decide.' }).waitFor(WAIT);
  if (await ownCard.locator('button.approve').count() !== 0) throw new Error("an Approve button on one's own request");
  await ownCard.locator('button.deny').waitFor(WAIT);
  await page.screenshot({ path: join(shots, '3b-own-request.png') });
  await page.click('#nav a[data-view=console]');
  step('own-request');

  // an approver, signed in with ?token= in another session (which polls REST instead of using the socket),
  // sees the diff and denies it with a reason
  const approverContext = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const approver = await approverContext.newPage();
  approver.on('pageerror', (e) => problems.push(`approver page error: ${e.message}`));
  await approver.goto(`${hub}/?live=polling&token=${encodeURIComponent(approverToken)}#approvals`);
  const editCard = approver.locator('#pending-approvals .approval', { hasText: 'edit_file' });
  await editCard.waitFor(WAIT);
  if (approver.url().includes('token=')) throw new Error(`the token stayed in the address: ${approver.url()}`);
  if (!(await approver.textContent('#live-mode')).includes('polling')) throw new Error('?live=polling was not honoured');
  const kept = await approver.evaluate(() => sessionStorage.getItem('fleetbus.token'));
  if (kept !== approverToken) throw new Error('the token from ?token= was not kept in sessionStorage');
  await editCard.locator('pre .del', { hasText: 'maintenance: none' }).waitFor(WAIT);
  await editCard.locator('pre .add', { hasText: 'maintenance: saturday 02:00' }).waitFor(WAIT);
  if (await editCard.locator('button.approve').count() !== 1 || await editCard.locator('.own-request').count() !== 0) {
    throw new Error('a second person sees no Approve button');
  }
  await approver.waitForFunction(() => /\d+:\d\d left/.test(document.querySelector('#pending-approvals .countdown').textContent),
    null, WAIT);
  await approver.screenshot({ path: join(shots, '3-approvals-pending.png') });
  await editCard.locator('input').fill('not during business hours');
  await editCard.locator('button.deny').click();
  await approver.locator('#decided-approvals .status-denied').first().waitFor(WAIT);
  await page.waitForFunction(() => {
    const state = document.getElementById('console-state');
    return state.className.includes('error') && state.textContent.includes('not during business hours');
  }, null, WAIT);
  step('tier3-denied');

  // console: a tier-3 command, approved this time
  await page.selectOption('#console-tool', 'run_command');
  await page.fill('#arg-command', 'echo approved-from-the-dashboard');
  await page.click('#console-run');
  await waitingForApproval(page);
  step('tier3-waiting');
  const card = approver.locator('#pending-approvals .approval', { hasText: 'echo approved-from-the-dashboard' });
  await card.waitFor(WAIT);
  await card.locator('input').fill('looks harmless');
  await card.locator('button.approve').click();
  await approver.locator('#decided-approvals .status-approved').first().waitFor(WAIT);
  await card.waitFor({ state: 'detached', ...WAIT });
  await approver.screenshot({ path: join(shots, '4-approvals-decided.png') });
  step('tier3-approved');

  // back in the first session: the call ran and its output arrived
  await page.waitForFunction(() => document.getElementById('console-state').className.includes('ok'), null, WAIT);
  const out = await page.textContent('#console-output');
  if (!out.includes('approved-from-the-dashboard')) throw new Error(`the console shows no command output: ${out}`);
  // this session uses the hub's WebSocket: the output arrived as stream chunks, before the result
  if (!(await page.textContent('#live-mode')).includes('WebSocket')) throw new Error('the first session is not on the WebSocket');
  if (await page.getAttribute('#console-output', 'data-streamed') !== 'true') throw new Error('the output was not streamed');
  await page.screenshot({ path: join(shots, '5-console-tier3.png') });
  step('tier3-ran');

  // audit: the trail with the approved command in it, and the hash chain verified
  await page.click('#nav a[data-view=audit]');
  await page.waitForFunction(() => /verified|broken|not available|Not allowed|Cannot read/
    .test(document.getElementById('audit-chain').textContent), null, WAIT);
  const chain = await page.textContent('#audit-chain');
  console.log(`AUDIT ${chain}`);
  if (!chain.includes('verified')) throw new Error(`the audit chain is not shown as verified: ${chain}`);
  await page.fill('#audit-tool', 'run_command');
  await page.click('#audit-filters button[type=submit]');
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('#audit-table tbody tr')];
    return rows.length > 0 && rows.every((r) => r.textContent.includes('run_command'))
      && rows.some((r) => r.textContent.includes('approved by'));
  }, null, WAIT);
  const dated = await page.locator('#audit-table tbody tr td.when').first().textContent();
  if (!/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/.test(dated)) throw new Error(`an audit record's time shows as "${dated}"`);
  await page.screenshot({ path: join(shots, '6-audit.png') });

  // from an audit record to the call's output: the approved command, then the denied edit (its record and reason)
  await page.locator('#audit-table tbody tr', { hasText: 'approved by' }).first().locator('a.call-link').click();
  await page.waitForFunction(() => window.location.hash.startsWith('#call/')
    && document.getElementById('call-state').className.includes('ok')
    && document.getElementById('call-output').textContent.includes('approved-from-the-dashboard')
    && document.querySelector('#nav a.active').dataset.view === 'audit', null, WAIT);
  const callFacts = await page.textContent('#call-facts');
  if (!callFacts.includes('run_command') || !callFacts.includes('n1')) throw new Error(`the call's facts: ${callFacts}`);
  await page.screenshot({ path: join(shots, '8-call.png') });
  await page.click('#call-page a.back');
  await page.fill('#audit-tool', 'edit_file');
  await page.click('#audit-filters button[type=submit]');
  const deniedRow = page.locator('#audit-table tbody tr', { hasText: 'denied by' }).first();
  await deniedRow.waitFor(WAIT);
  await deniedRow.locator('a.call-link').click();
  await page.waitForFunction(() => document.getElementById('call-state').className.includes('error')
    && document.getElementById('call-state').textContent.includes('not during business hours'), null, WAIT);
  await page.waitForFunction(() => /"path":/.test(document.getElementById('call-args-cell').textContent), null, WAIT);
  step('audit-to-output');
  // every page at 375 and 1,440 px: screenshots, and none wider than the window
  const overflow = await checkWidths(browser, hub, adminToken, pagesToCheck(await page.evaluate(() => location.hash)), shots);
  if (overflow.length) throw new Error(`pages wider than the window:\n${overflow.join('\n')}`);
  step('widths');
  console.log(`LIVE ${await page.textContent('#live-mode')}`);
  if (problems.length) throw new Error(`the page reported errors:\n${problems.join('\n')}`);
  step('done');
} catch (e) {
  if (page) await page.screenshot({ path: join(shots, 'failure.png') }).catch(() => {});
  console.error(`FAILED ${e.stack || e}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}

/** Waits until the nodes table shows exactly these nodes, in this order. */
async function shownNodes(p, ids) {
  await p.waitForFunction((want) => [...document.querySelectorAll('#nodes-table tbody tr[data-node]')]
    .map((r) => r.dataset.node).join(',') === want, ids.join(','), WAIT);
}

async function waitingForApproval(p) {
  await p.waitForFunction(() => document.getElementById('console-state').textContent.includes('waiting for approval'),
    null, WAIT);
}
