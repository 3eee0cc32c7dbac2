/**
 * The panel's shell in a real Chromium against real `serve` and `sim` processes: every page at a
 * laptop's and a phone's size in the light and the dark scheme with axe-core's every rule and no
 * sideways scroll, keyboard-only navigation (skip link, nav, Sign out), the Audit page's filters,
 * the Events page's readable tail, the sign-in hint and the favicon, the Group page on a daemon in
 * no group, and a session ended elsewhere sending the open page back to sign-in and then back to
 * the same page.
 *
 * Skipped without a Chromium, as test/e2e/panel.test.ts explains (MODGATE_REQUIRE_CHROMIUM=1
 * makes a missing Chromium fail).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumForTests } from '../../harness/browser.ts';
import { runOk } from '../../harness/cli.ts';
import {
  openPanel,
  PHONE,
  problemsInEveryLook,
  sharedPanel,
  type SharedPanel,
} from '../../harness/panel-browser.ts';
import { startPanelStack, type PanelStack } from '../../harness/panel-stack.ts';
import { eventually } from '../../harness/stack.ts';

const chromium = chromiumForTests('test/e2e/panel-shell.test.ts');

/** Pages the walk must find in the navigation; it walks every page the navigation links, these and any added later. */
const KNOWN_PAGES = [
  'Overview',
  'Players',
  'World',
  'Economy',
  'Shop',
  'Console',
  'Group',
  'Keys',
  'Plan',
  'Webhooks',
  'Audit',
  'Events',
  'Tokens',
];

describe.runIf(chromium.run)('the panel shell in Chromium', () => {
  let stack: PanelStack;
  let browser: Browser;
  /**
   * The page of the tests that need no session of their own; those that end, revoke or switch
   * one, sign in with another token, or start from a document just loaded open their own.
   */
  let shared: SharedPanel;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startPanelStack(), chromium.launch()]);
    shared = sharedPanel(browser, stack);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('shows the sign-in page in every look with no axe violation and no sideways scroll', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${stack.adminUrl}/`);
      await page.getByLabel('Admin token').waitFor();
      expect(await problemsInEveryLook(page, 'Sign-in')).toEqual([]);
    } finally {
      await context.close();
    }
  });

  // One signed-in page walks them all, each checked in the four looks where it stands: the state
  // each page loads to on a daemon in no group with a live simulator (the page files check the
  // states this walk cannot reach: rows of their own, forms, dialogs).
  it('shows every page the navigation links in every look with no axe violation and no sideways scroll', async () => {
    const panel = await shared.show('overview', 'Overview');
    const pages: [string, string][] = [];
    for (const link of await panel.page.locator('nav a').all()) {
      const href = (await link.getAttribute('href')) ?? '';
      pages.push([href.replace(/^#\//, ''), (await link.textContent()) ?? '']);
    }
    expect(pages.map(([, title]) => title)).toEqual(expect.arrayContaining(KNOWN_PAGES));
    const problems: string[] = [];
    for (const [path, title] of pages) {
      await panel.go(path, title);
      // What each page loads, then checked as the user sees it.
      await panel.page.getByText('Loading…').first().waitFor({ state: 'detached', timeout: 10_000 });
      if (path === 'events') await panel.page.getByTestId('event-row').first().waitFor();
      problems.push(...(await problemsInEveryLook(panel.page, title)));
    }
    expect(problems).toEqual([]);
  }, 240_000);

  it('says on the Group page that the daemon is in no group and where setting one up is explained', async () => {
    const panel = await shared.show('group', 'Group');
    const explanation = panel.page.getByTestId('not-in-group');
    await explanation.getByRole('heading', { name: 'This daemon is in no group' }).waitFor();
    expect(await explanation.textContent()).toContain('modgate docs group');
    expect(await panel.page.getByRole('table').count()).toBe(0);
  });

  it('is usable by keyboard alone on a phone: skip link first, then the nav and Sign out', async () => {
    const panel = await openPanel(browser, stack, { viewport: PHONE });
    const { page } = panel;
    try {
      const focused = () => page.evaluate('document.activeElement?.textContent') as Promise<string>;
      await page.keyboard.press('Tab');
      expect(await focused()).toBe('Skip to main content');
      await page.keyboard.press('Enter');
      expect(await page.evaluate('document.activeElement?.tagName')).toBe('H1');
      await page.evaluate('document.activeElement.blur()');
      const stops: string[] = [];
      // Every nav link, then Sign out; bounded so a focus trap fails instead of hanging.
      while (stops.at(-1) !== 'Sign out' && stops.length < 40) {
        await page.keyboard.press('Tab');
        stops.push(await focused());
      }
      expect(stops).toEqual(expect.arrayContaining(['Overview', 'Audit', 'Events', 'Sign out']));
      // Back to the nav's Audit link by keyboard: the new page's heading takes focus.
      while ((await focused()) !== 'Audit') await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
      await eventually(async () => (await page.evaluate('document.activeElement?.textContent')) === 'Audit');
      expect(await page.evaluate('document.activeElement?.tagName')).toBe('H1');
      const signOut = await page.getByRole('button', { name: 'Sign out' }).boundingBox();
      expect(signOut!.x + signOut!.width).toBeLessThanOrEqual(PHONE.width);
    } finally {
      await panel.close();
    }
  });

  it('finds a revocation by its concrete path, filters by method, keeps the filters across a reload and says what each row did', async () => {
    const created = await stack.data.createKey('--scopes', 'server:read');
    await runOk(['keys', 'revoke', created.id, '--data-dir', stack.data.dir]);
    const panel = await shared.show('audit', 'Audit');
    const { page } = panel;
    await page.getByLabel('Route (template or path)').fill(`/admin/v1/keys/${created.id}`);
    await page.getByLabel('Method').selectOption('DELETE');
    await page.getByRole('button', { name: 'Filter' }).click();
    const rows = page.getByTestId('audit-row');
    await eventually(async () => (await rows.count()) === 1);
    expect(await rows.getByTestId('audit-change').textContent()).toBe(
      `Revoke an API key (id ${created.id})Done`,
    );
    expect(page.url()).toContain('method=DELETE');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
    await eventually(async () => (await rows.count()) === 1);
    expect(await page.getByLabel('Method').inputValue()).toBe('DELETE');
    await page.getByLabel('Method').selectOption('PATCH');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No audit lines match these filters.').waitFor();
  });

  it('clears the old rows when a filter is refused, saying so', async () => {
    const panel = await shared.show('audit', 'Audit');
    const { page } = panel;
    await page.getByTestId('audit-row').first().waitFor();
    await page.getByLabel('Status (404 or 4xx)').fill('600');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByText('Nothing to show: the filters were refused (see above).').waitFor();
    expect(await page.getByTestId('audit-row').count()).toBe(0);
  });

  it('shows events as type, time and a readable line, the JSON on demand, and only the chosen type', async () => {
    const panel = await shared.show('events', 'Events');
    const { page } = panel;
    await page.getByTestId('tail-state').filter({ hasText: 'live' }).waitFor();
    await page.getByLabel('Type').selectOption('player.joined');
    await page.getByTestId('tail-state').filter({ hasText: 'live' }).waitFor();
    await eventually(async () => (await page.getByTestId('event-row').count()) >= 2, 30_000);
    const types = await page.locator('[data-testid=event-row] .type').allTextContents();
    expect(new Set(types)).toEqual(new Set(['player.joined']));
    expect(await page.getByTestId('event-summary').first().textContent()).toMatch(/^.+ joined$/);
    const json = page.getByTestId('event-row').first().locator('pre');
    expect(await json.isVisible()).toBe(false);
    await page.getByTestId('event-row').first().getByText('JSON').click();
    expect(JSON.parse((await json.textContent())!)).toMatchObject({ type: 'player.joined' });
  });

  it('says why the tail is closed when the daemon refuses it, too many open streams, and offers to reconnect', async () => {
    // A token of its own: the four streams it may hold are all this test's.
    const own = JSON.parse(
      await runOk(['admin', 'tokens', 'create', '--data-dir', stack.data.dir, '--name', 'streams', '--json']),
    ) as { token: string };
    const held: AbortController[] = [];
    const panel = await openPanel(browser, stack, { token: own.token });
    try {
      for (let n = 0; n < 4; n += 1) {
        const abort = new AbortController();
        held.push(abort);
        const response = await fetch(`${stack.adminUrl}/admin/v1/events`, {
          headers: { authorization: `Bearer ${own.token}` },
          signal: abort.signal,
        });
        expect(response.status).toBe(200);
      }
      await panel.go('events', 'Events');
      await panel.page.getByTestId('tail-state').filter({ hasText: 'closed' }).waitFor();
      await panel.page.getByTestId('tail-reason').filter({ hasText: 'rate_limited' }).waitFor();
      expect(await panel.page.getByTestId('tail-reason').textContent()).toMatch(/^An admin may hold 4 open/);
      await panel.page.getByRole('button', { name: 'Reconnect' }).waitFor();
    } finally {
      for (const abort of held) abort.abort();
      await panel.close();
    }
  });

  it('sends the Events page back to sign-in when its session is signed out elsewhere', async () => {
    const panel = await openPanel(browser, stack);
    try {
      await panel.go('events', 'Events');
      await panel.page.getByTestId('tail-state').filter({ hasText: 'live' }).waitFor();
      const [cookie] = await panel.context.cookies();
      const ended = await fetch(`${stack.adminUrl}/admin/v1/session`, {
        method: 'DELETE',
        headers: { cookie: `${cookie!.name}=${cookie!.value}`, origin: stack.adminUrl },
      });
      expect(ended.status).toBe(204);
      await panel.page.getByLabel('Admin token').waitFor();
      expect(await panel.page.getByRole('alert').textContent()).toContain('Your session ended');
    } finally {
      await panel.close();
    }
  });

  it('sends a page whose token is revoked elsewhere back to sign-in saying why, and back to the same page after', async () => {
    const other = JSON.parse(
      await runOk([
        'admin',
        'tokens',
        'create',
        '--data-dir',
        stack.data.dir,
        '--name',
        'revoked-later',
        '--json',
      ]),
    ) as { id: string; token: string };
    const panel = await openPanel(browser, stack, { token: other.token });
    const { page } = panel;
    try {
      await panel.go('audit', 'Audit');
      await page.getByLabel('Method').selectOption('POST');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByTestId('audit-row').first().waitFor();
      await runOk(['admin', 'tokens', 'revoke', other.id, '--data-dir', stack.data.dir]);
      // No click needed: the open page's session watch learns of the revocation by itself.
      await page.getByLabel('Admin token').waitFor();
      expect(await page.getByRole('alert').textContent()).toMatch(
        /Your session ended \(.+\)\. Sign in again/,
      );
      await page.getByLabel('Admin token').fill(stack.token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Audit' }).waitFor();
      expect(page.url()).toContain('#/audit?method=POST');
      expect(await page.getByLabel('Method').inputValue()).toBe('POST');
    } finally {
      await panel.close();
    }
  });

  it('shows the sign-in commands as code with --data-dir, and answers /favicon.ico with an icon', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const missing: string[] = [];
    page.on('response', (response) => response.status() >= 400 && missing.push(response.url()));
    try {
      await page.goto(`${stack.adminUrl}/`);
      await page.getByLabel('Admin token').waitFor();
      const hint = page.locator('.hint');
      expect(await hint.textContent()).not.toContain('`');
      expect(await hint.locator('code').allTextContents()).toEqual([
        'modgate admin tokens create --name NAME --data-dir DIR',
        'modgate admin login-url --data-dir DIR',
      ]);
      const icon = await fetch(`${stack.adminUrl}/favicon.ico`);
      expect(icon.status).toBe(200);
      expect(icon.headers.get('content-type')).toBe('image/svg+xml');
      expect(await icon.text()).toMatch(/^<svg /);
      const requested = await page.evaluate("fetch('/favicon.ico').then((response) => response.status)");
      expect(requested).toBe(200);
      expect(missing.filter((url) => !url.includes('/admin/v1/session'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
