// The dashboard's sign-in at the organisation's issuer, in Debian's Chromium (playwright-core), driven by
// DashboardLoginBrowserTest: the test OpenID Provider (clients/idp.mjs) knows alice (fleet-admins → admin, approver),
// bob (fleet-viewers → viewer) and carol (marketing → no role). Each person uses a browser context of their own and
// goes through the issuer's real login and consent pages; the hub does code + PKCE. Alice sees the fleet and revokes
// on the Revocations page; bob sees no such page; carol is refused and told why. A failure leaves login-failure.png.
//
// env: HUB_URL, SCREENSHOTS (folder), CHROMIUM (default /usr/bin/chromium)
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkWidths } from './widths.mjs';

const hub = need('HUB_URL');
const shots = need('SCREENSHOTS');
const WAIT = { timeout: 60_000 };
mkdirSync(shots, { recursive: true });

function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const problems = [];
let page;
try {
  // alice: "Sign in with Test IdP", the issuer's pages, back on the dashboard as an admin, seeing the fleet
  page = await signIn('alice');
  await page.waitForFunction(() => document.getElementById('whoami').textContent === 'alice · admin, approver', null, WAIT);
  await page.click('#nav a[data-view=nodes]');
  await page.locator('tr[data-node="n1"].online').waitFor(WAIT);
  await page.screenshot({ path: join(shots, 'login-1-alice-nodes.png') });
  console.log('STEP alice-sees-the-fleet');

  // the Revocations page: revoke a subject and a token id, and see both listed
  await page.locator('#nav a[data-view=revocations]').waitFor({ state: 'visible', ...WAIT });
  await page.click('#nav a[data-view=revocations]');
  await page.locator('#revoke-form').waitFor(WAIT);
  await page.selectOption('#revoke-kind', 'subject');
  await page.fill('#revoke-value', 'mallory');
  await page.click('#revoke-form button[type=submit]');
  await page.locator('#revoke-state', { hasText: 'Revoked: every token of mallory.' }).waitFor(WAIT);
  await page.selectOption('#revoke-kind', 'tokenId');
  await page.fill('#revoke-value', 'leaked-token-1');
  await page.click('#revoke-form button[type=submit]');
  await page.locator('#revoke-state', { hasText: 'Revoked: token leaked-token-1.' }).waitFor(WAIT);
  await page.locator('#revocations-table tr[data-kind=subject]', { hasText: 'mallory' }).waitFor(WAIT);
  const listed = await page.locator('#revocations-table tr[data-kind=token]', { hasText: 'leaked-token-1' }).textContent(WAIT);
  if (!listed.includes('alice')) throw new Error(`the revocation does not say who revoked it: ${listed}`);
  await page.screenshot({ path: join(shots, 'login-2-revocations.png') });
  const token = await page.evaluate(() => sessionStorage.getItem('fleetbus.token'));
  const overflow = await checkWidths(browser, hub, token, [
    { name: 'revocations', hash: '#revocations', ready: '#revocations-table tbody tr' }], shots);
  if (overflow.length) throw new Error(`pages wider than the window:\n${overflow.join('\n')}`);
  console.log('STEP alice-revoked');

  // bob, a viewer: signed in, sees the fleet, no Revocations page (not in the menu, not at its address)
  const bob = await signIn('bob');
  await bob.waitForFunction(() => document.getElementById('whoami').textContent === 'bob · viewer', null, WAIT);
  await bob.click('#nav a[data-view=nodes]');
  await bob.locator('tr[data-node="n1"]').waitFor(WAIT);
  if (await bob.locator('#nav a[data-view=revocations]').isVisible()) throw new Error('a viewer sees the Revocations menu');
  await bob.evaluate(() => { window.location.hash = '#revocations'; });
  await bob.waitForFunction(() => document.querySelector('#nav a.active')?.dataset.view === 'overview', null, WAIT);
  if (await bob.locator('#revoke-form').count() !== 0) throw new Error('a viewer has the revocation form');
  await bob.screenshot({ path: join(shots, 'login-3-bob-viewer.png') });
  console.log('STEP bob-has-no-revocations');

  // carol: the issuer signs her in, the hub refuses her (no role), and the page says why
  const carol = await signIn('carol');
  await carol.locator('#sign-in-error', { hasText: 'map to none' }).waitFor(WAIT);
  const why = await carol.textContent('#sign-in-error');
  if (!why.includes("'carol' has no fleetbus role") || !why.includes('auth.issuers[].roles')) {
    throw new Error(`carol's refusal does not say why: ${why}`);
  }
  if (await carol.evaluate(() => sessionStorage.getItem('fleetbus.token')) !== null) throw new Error('carol kept a token');
  await carol.locator('#sign-in-with-0').waitFor(WAIT);
  await carol.screenshot({ path: join(shots, 'login-4-carol-refused.png') });
  console.log(`REFUSED ${why}`);
  console.log('STEP carol-refused');
  if (problems.length) throw new Error(`the page reported errors:\n${problems.join('\n')}`);
  console.log('STEP done');
} catch (e) {
  if (page) await page.screenshot({ path: join(shots, 'login-failure.png') }).catch(() => {});
  console.error(`FAILED ${e.stack || e}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}

/** A new browser context: the dashboard, "Sign in with Test IdP", the issuer's login and consent pages, and back. */
async function signIn(login) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const p = await context.newPage();
  p.on('pageerror', (e) => problems.push(`${login}: page error: ${e.message}`));
  p.on('console', (m) => {
    if (m.type() === 'error' && m.location().url.startsWith(hub) && !/^(Failed to load resource|WebSocket connection to)/.test(m.text())) {
      problems.push(`${login}: console: ${m.text()}`);
    }
  });
  // every address the browser visits on the hub: never a token, never a code (the hub takes it at /login/callback)
  p.on('framenavigated', (f) => {
    const url = f.url();
    if (url.startsWith(hub) && !url.startsWith(`${hub}/login/callback`) && /token|code=/.test(url)) {
      problems.push(`${login}: a token or code in the address ${url}`);
    }
  });
  await p.goto(`${hub}/`);
  const button = p.locator('#sign-in-with-0');
  await button.waitFor(WAIT);
  if ((await button.textContent()) !== 'Sign in with Test IdP') throw new Error(`the button says ${await button.textContent()}`);
  if (login === 'alice') await p.screenshot({ path: join(shots, 'login-0-sign-in.png') });
  await button.click();
  // the issuer's own pages (oidc-provider's development interactions)
  await p.locator('input[name=login]').waitFor(WAIT);
  await p.fill('input[name=login]', login);
  await p.fill('input[name=password]', 'any');
  await p.click('button[type=submit]');
  await p.locator('button[type=submit]', { hasText: 'Continue' }).click(WAIT);
  await p.waitForURL((u) => u.href.startsWith(`${hub}/`) && !u.href.includes('/login/'), WAIT);
  return p;
}
