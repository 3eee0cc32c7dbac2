/**
 * `npm run panel:screenshots`: a screenshot of each page of the operator panel into
 * docs/panel/*.png (linked from docs/admin.md), taken in headless Chromium against a real
 * `serve` and `sim` (harness/panel-stack.ts), with a few keys, a webhook to a receiver on
 * loopback, some /v1 traffic and a stream of game events, so the pages show something. Needs a
 * Chromium (harness/browser.ts: CHROMIUM_PATH or /usr/bin/chromium).
 */
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { adminRequest } from '../harness/admin.ts';
import { findChromium, launchChromium } from '../harness/browser.ts';
import { startPanelStack, type PanelStack } from '../harness/panel-stack.ts';
import { eventually } from '../harness/stack.ts';

const OUT = fileURLToPath(new URL('../docs/panel/', import.meta.url));
const PAGES = [
  'Overview',
  'Players',
  'World',
  'Economy',
  'Shop',
  'Console',
  'Keys',
  'Plan',
  'Webhooks',
  'Audit',
  'Events',
  'Tokens',
] as const;

async function main(): Promise<void> {
  const chromium = findChromium();
  if (chromium === undefined)
    throw new Error('no Chromium found: apt-get install chromium, or set CHROMIUM_PATH');
  await mkdir(OUT, { recursive: true });
  const [stack, browser] = await Promise.all([
    startPanelStack({ eventsRate: 600 }),
    launchChromium(chromium),
  ]);
  // A webhook receiver on loopback, so Webhooks has deliveries to show.
  const receiver = createServer((_req, res) => res.writeHead(204).end()).listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  try {
    await fillIn(stack, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/modgate`);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${stack.adminUrl}/`);
    await shoot(page, 'sign-in');
    await page.getByLabel('Admin token').fill(stack.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    for (const name of PAGES) {
      await page.getByRole('link', { name, exact: true }).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      await settle(page, name);
      await shoot(page, name.toLowerCase());
    }
    await phone(browser, stack);
  } finally {
    receiver.close();
    await browser.close();
    await stack.close();
  }
}

/** Keys, a webhook, and /v1 traffic (answered and refused) for the chart. */
async function fillIn(stack: PanelStack, hook: string): Promise<void> {
  const bot = await stack.data.createKey(
    '--name',
    'discord-bot',
    '--scopes',
    'server:read,players:read,events:read',
  );
  await stack.data.createKey(
    '--name',
    'shop',
    '--scopes',
    'economy:read,economy:write',
    '--expires-in',
    '30d',
  );
  const admin = { url: stack.adminUrl, token: stack.token };
  await adminRequest({
    ...admin,
    method: 'POST',
    path: '/admin/v1/webhooks',
    body: { url: hook, events: ['*'] },
  });
  for (let i = 0; i < 40; i++) {
    await fetch(`${stack.apiUrl}/v1/server`, { headers: { authorization: `Bearer ${bot.key}` } });
    if (i % 4 === 0) await fetch(`${stack.apiUrl}/v1/server`);
  }
}

/** Waits until the page shows what it is for. */
async function settle(page: Page, name: string): Promise<void> {
  if (name === 'Events') {
    await eventually(async () => (await page.getByTestId('event-row').count()) >= 5, 30_000);
    return;
  }
  await page.waitForLoadState('networkidle');
  if (name === 'Webhooks') {
    await page
      .getByRole('button', { name: /^Deliveries/ })
      .first()
      .click();
    await page.waitForLoadState('networkidle');
  }
}

/** The Players page as a phone in the dark scheme shows it: the header wrapped, nothing sideways. */
async function phone(browser: Browser, stack: PanelStack): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
  const page = await context.newPage();
  await page.goto(`${stack.adminUrl}/`);
  await page.getByLabel('Admin token').fill(stack.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Players', exact: true }).click();
  await page.getByRole('heading', { name: 'Players', level: 1 }).waitFor();
  await settle(page, 'Players');
  await shoot(page, 'players-phone-dark');
  await context.close();
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${OUT}${name}.png`, fullPage: true });
  process.stdout.write(`docs/panel/${name}.png\n`);
}

await main();
