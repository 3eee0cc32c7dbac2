/**
 * `npm run panel:screenshots`: a screenshot of each page of the operator panel into
 * docs/panel/*.png (linked from docs/admin.md), taken in headless Chromium against a real
 * `serve` and `sim` (harness/panel-stack.ts), with a few keys, a webhook to a receiver on
 * loopback, some /v1 traffic and a stream of game events, so the pages show something. Needs a
 * Chromium (harness/browser.ts: CHROMIUM_PATH or /usr/bin/chromium). The Group page is shot on a
 * second stack in a group of its own, on a throwaway PostgreSQL (harness/postgres.ts); without
 * PostgreSQL's server binaries that one shot is skipped, saying so, and the rest are taken.
 */
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { adminRequest } from '../harness/admin.ts';
import { findChromium, launchChromium } from '../harness/browser.ts';
import { startPanelStack, type PanelStack } from '../harness/panel-stack.ts';
import { postgresAvailable, startPostgres } from '../harness/postgres.ts';
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
    await group(browser);
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

/**
 * The Group page of a daemon in a group "Alpha" with a ban and a mute made through the admin API
 * the daemon publishes to the group, so its tables show a server and two sanctions.
 */
async function group(browser: Browser): Promise<void> {
  const postgres = postgresAvailable('scripts/panel-screenshots.ts (docs/panel/group.png)');
  if (postgres.binDir === null) return;
  const cluster = await startPostgres(postgres.binDir);
  const configDir = await mkdtemp(join(tmpdir(), 'modgate-screenshots-group-'));
  let stack: PanelStack | undefined;
  try {
    const config = join(configDir, 'modgate.toml');
    const url = await cluster.createDatabase('screenshots');
    await writeFile(config, `[group]\ndatabase_url = "${url}"\nname = "Alpha"\n`);
    stack = await startPanelStack({ eventsRate: 0, serveExtra: ['--config', config] });
    const admin = { url: stack.adminUrl, token: stack.token, method: 'POST' };
    const game = '/admin/v1/game/players';
    await adminRequest({
      ...admin,
      path: `${game}/76561199000035001/ban`,
      body: { duration: 24, duration_unit: 'hours', reason: 'aimbot' },
    });
    await adminRequest({
      ...admin,
      path: `${game}/76561199000035002/mute`,
      body: { duration: 2, duration_unit: 'hours', reason: 'spam' },
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${stack.adminUrl}/`);
    await page.getByLabel('Admin token').fill(stack.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Group', exact: true }).click();
    // The daemon publishes its sanctions to the group's log as it can: read again until both are in.
    const rows = page.getByTestId('group-sanction');
    await eventually(async () => {
      await page.getByRole('button', { name: 'Filter' }).click();
      return (await rows.count()) === 2;
    });
    await page.getByTestId('group-server').first().waitFor();
    await shoot(page, 'group');
    await page.close();
  } finally {
    await stack?.close();
    await cluster.cleanup();
    await rm(configDir, { recursive: true, force: true });
  }
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${OUT}${name}.png`, fullPage: true });
  process.stdout.write(`docs/panel/${name}.png\n`);
}

await main();
