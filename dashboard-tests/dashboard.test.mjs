// Drives the hub's dashboard in Debian's Chromium, step by step with the JUnit test that owns the fleet
// (DashboardBrowserTest): it prints "STEP <name>" lines, and the test starts or kills nodes when it
// reads them. Every wait is for something on the page, with a deadline; a failure leaves failure.png.
//
// env: HUB_URL, ADMIN_TOKEN, APPROVER_TOKEN, EDIT_FILE (a file on node n1 the test may propose to edit),
//      SCREENSHOTS (folder), CHROMIUM (default /usr/bin/chromium)
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

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
  await page.locator('#nodes-table').waitFor(WAIT);
  await page.waitForFunction(() => document.getElementById('whoami').textContent.includes('admin'), null, WAIT);
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

  // console: a tier-3 file edit waits for a person, who sees the diff
  await page.selectOption('#console-tool', 'edit_file');
  await page.fill('#arg-path', editFile);
  await page.fill('#arg-target_content', 'maintenance: none');
  await page.fill('#arg-replacement_content', 'maintenance: saturday 02:00');
  await page.click('#console-run');
  await waitingForApproval(page);

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
  await page.screenshot({ path: join(shots, '6-audit.png') });
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

async function waitingForApproval(p) {
  await p.waitForFunction(() => document.getElementById('console-state').textContent.includes('waiting for approval'),
    null, WAIT);
}
