// Every page of the dashboard at a phone's width (375 px) and a desktop's (1,440 px): a screenshot of each, and no
// horizontal overflow (the page never scrolls sideways; a table too wide for its card scrolls inside the card).
import { join } from 'node:path';

export const WIDTHS = [375, 1440];

/** Every page, with what shows once it has its data; {@code callHash} is a call's page (#call/<id>). */
export function pagesToCheck(callHash) {
  return [
    { name: 'overview', hash: '#overview', ready: '#overview-nodes .big' },
    { name: 'nodes', hash: '#nodes', ready: '#nodes-table tbody tr' },
    { name: 'node', hash: '#node/n1', ready: '#node-facts dd' },
    { name: 'approvals', hash: '#approvals', ready: '#decided-approvals tbody tr' },
    { name: 'console', hash: '#console', ready: '#console-form' },
    { name: 'audit', hash: '#audit', ready: '#audit-table tbody tr' },
    { name: 'call', hash: callHash, ready: '#call-args-cell > *' },
  ];
}

/**
 * Opens each of `pages` ({name, hash, ready: a selector that is visible once the page has its data}) in a new
 * signed-in tab per width; returns one line per page and width that overflows (empty when none does).
 */
export async function checkWidths(browser, hub, token, pages, shots) {
  const overflowing = [];
  for (const width of WIDTHS) {
    const context = await browser.newContext({ viewport: { width, height: width < 800 ? 812 : 900 } });
    const tab = await context.newPage();
    await tab.goto(`${hub}/?live=polling&token=${encodeURIComponent(token)}#overview`);
    for (const p of pages) {
      await tab.evaluate((hash) => { window.location.hash = hash; }, p.hash);
      await tab.locator(p.ready).first().waitFor({ timeout: 60_000 });
      await tab.waitForTimeout(0);
      const sizes = await tab.evaluate(() => ({ page: document.documentElement.scrollWidth, window: window.innerWidth,
        widest: [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
          .slice(0, 3).map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${e.className}`) }));
      await tab.screenshot({ path: join(shots, `w${width}-${p.name}.png`), fullPage: true });
      if (sizes.page > sizes.window) {
        overflowing.push(`${p.name} at ${width} px: ${sizes.page} px wide (${sizes.widest.join(', ')})`);
      }
    }
    await context.close();
  }
  return overflowing;
}
