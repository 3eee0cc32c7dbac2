/**
 * `npm run panel:screenshots`: a screenshot of each page of the operator panel into
 * docs/panel/*.png (linked from docs/admin.md), taken in headless Chromium against a real
 * `serve` and `sim` (harness/panel-stack.ts), with a few keys and a stream of game events so the
 * pages show something. Needs a Chromium (harness/browser.ts: CHROMIUM_PATH or /usr/bin/chromium).
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { findChromium, launchChromium } from '../harness/browser.ts';
import { startPanelStack } from '../harness/panel-stack.ts';
import { eventually } from '../harness/stack.ts';

const OUT = fileURLToPath(new URL('../docs/panel/', import.meta.url));
const PAGES = ['Overview', 'Keys', 'Plan', 'Webhooks', 'Audit', 'Events'] as const;

async function main(): Promise<void> {
  const chromium = findChromium();
  if (chromium === undefined)
    throw new Error('no Chromium found: apt-get install chromium, or set CHROMIUM_PATH');
  await mkdir(OUT, { recursive: true });
  const [stack, browser] = await Promise.all([
    startPanelStack({ eventsRate: 1200 }),
    launchChromium(chromium),
  ]);
  try {
    await stack.data.createKey('--name', 'discord-bot', '--scopes', 'server:read,players:read,events:read');
    await stack.data.createKey(
      '--name',
      'shop',
      '--scopes',
      'economy:read,economy:write',
      '--expires-in',
      '30d',
    );
    for (let i = 0; i < 20; i++) await fetch(`${stack.apiUrl}/v1/server`);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${stack.adminUrl}/`);
    await page.screenshot({ path: `${OUT}sign-in.png` });
    await page.getByLabel('Admin token').fill(stack.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    for (const name of PAGES) {
      await page.getByRole('link', { name, exact: true }).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      if (name === 'Events')
        await eventually(async () => (await page.getByTestId('event-row').count()) >= 5, 30_000);
      else await page.waitForLoadState('networkidle');
      await page.screenshot({ path: `${OUT}${name.toLowerCase()}.png`, fullPage: true });
      process.stdout.write(`docs/panel/${name.toLowerCase()}.png\n`);
    }
  } finally {
    await browser.close();
    await stack.close();
  }
}

await main();
