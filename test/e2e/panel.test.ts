/**
 * The operator panel in a real Chromium (playwright-core) against real `serve` and `sim`
 * processes: sign-in with a token and with a one-time link, a key made in the form and used on
 * /v1, revoked in the UI (confirmed) and refused by /v1, the API switch (turning it off
 * confirmed), the live event tail, and a cross-site form post refused although the browser sends
 * the session cookie.
 *
 * Run when a Chromium is found (harness/browser.ts: CHROMIUM_PATH or /usr/bin/chromium); without
 * one this file says so on stderr and its tests are skipped. .ci/run installs Chromium and sets
 * MODGATE_REQUIRE_CHROMIUM=1, and then a missing Chromium fails instead.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, afterEach, describe, expect, it } from 'vitest';
import { chromiumForTests } from '../../harness/browser.ts';
import { runOk } from '../../harness/cli.ts';
import { sharedPanel, type SharedPanel } from '../../harness/panel-browser.ts';
import { startPanelStack, type PanelStack } from '../../harness/panel-stack.ts';
import { eventually } from '../../harness/stack.ts';

const chromium = chromiumForTests('test/e2e/panel.test.ts');

describe.runIf(chromium.run)('the operator panel in Chromium', () => {
  let stack: PanelStack;
  let browser: Browser;
  /** The page of the tests that need no session of their own. */
  let shared: SharedPanel;
  /**
   * A fresh context's page, for the tests that prove signing in or out, start signed out, or
   * leave the panel's document (`freshPage`); closed after each test.
   */
  let context: BrowserContext | undefined;
  let page: Page;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startPanelStack(), chromium.launch()]);
    shared = sharedPanel(browser, stack);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  async function freshPage(): Promise<BrowserContext> {
    context = await browser.newContext();
    page = await context.newPage();
    return context;
  }

  async function signIn(): Promise<BrowserContext> {
    const context = await freshPage();
    await page.goto(`${stack.adminUrl}/`);
    await page.getByLabel('Admin token').fill(stack.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Overview' }).waitFor();
    return context;
  }

  function v1(path: string, key: string): Promise<Response> {
    return fetch(`${stack.apiUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  }

  it('signs in with an admin token, sets an HttpOnly SameSite=Strict cookie, and shows the overview with players and the chart', async () => {
    const context = await signIn();
    for (const name of ['Overview', 'Keys', 'Plan', 'Webhooks', 'Audit', 'Events']) {
      await expect(page.getByRole('link', { name, exact: true }).count()).resolves.toBe(1);
    }
    await page.getByText(/connected, mod/).waitFor();
    await page.getByRole('img', { name: 'Requests per minute over the last hour' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.locator('dt:text-is("Players online") + dd').textContent()).toMatch(/^\d+$/);
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'modgate_session', httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookie!.expires).toBeGreaterThan(Date.now() / 1000);
    expect(await page.evaluate('document.cookie')).toBe('');
  });

  it('refuses a wrong token and stays on the sign-in form', async () => {
    const context = await freshPage();
    await page.goto(`${stack.adminUrl}/`);
    await page.getByLabel('Admin token').fill('mgadm_wrong_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('unauthorized');
    expect(await context.cookies()).toEqual([]);
  });

  it('signs in once with a link from `modgate admin login-url`, and the link then no longer works', async () => {
    const printed = await runOk(['admin', 'login-url', '--data-dir', stack.data.dir]);
    const url = printed.trim().split('\n').pop()!.trim();
    await freshPage();
    expect(url).toMatch(new RegExp(`^${stack.adminUrl}/login#[A-Za-z0-9_-]{43}$`));
    await page.goto(url);
    await page.getByRole('link', { name: 'Keys' }).waitFor();
    expect(page.url()).not.toContain('#' + url.split('#')[1]);
    const second = await browser.newContext();
    const again = await second.newPage();
    await again.goto(url);
    await again.getByLabel('Admin token').waitFor();
    await again.getByRole('alert').waitFor();
    await second.close();
  });

  it('creates a key in the form, which works on /v1 at once, and revokes it, which /v1 then refuses', async () => {
    const { page } = await shared.show('overview', 'Overview');
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('from the panel');
    await page.getByLabel('server:read', { exact: true }).check();
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const key = (await page.getByTestId('new-key').textContent())!.trim();
    expect(key.length).toBeGreaterThan(20);
    expect((await v1('/v1/server', key)).status).toBe(200);
    expect((await v1('/v1/players', key)).status).toBe(403);
    const row = page.getByTestId('key-row').filter({ hasText: 'from the panel' });
    await row.getByRole('button', { name: 'Revoke key from the panel' }).click();
    await page
      .getByRole('dialog', { name: 'Revoke the key from the panel?' })
      .getByRole('button', { name: 'Revoke' })
      .click();
    await row.waitFor({ state: 'detached' });
    expect((await v1('/v1/server', key)).status).toBe(401);
  });

  it('flips the API switch, and /v1 follows at once', async () => {
    const created = await stack.data.createKey('--scopes', 'server:read');
    const { page } = await shared.show('overview', 'Overview');
    await page.getByRole('link', { name: 'Plan' }).click();
    await page.getByRole('button', { name: 'Disable API' }).click();
    await page
      .getByRole('dialog', { name: 'Disable the API?' })
      .getByRole('button', { name: 'Disable API' })
      .click();
    await page.getByRole('button', { name: 'Enable API' }).waitFor();
    expect((await v1('/v1/server', created.key)).status).toBe(404);
    await page.getByRole('button', { name: 'Enable API' }).click();
    await page.getByRole('button', { name: 'Disable API' }).waitFor();
    expect((await v1('/v1/server', created.key)).status).toBe(200);
  });

  it('shows game events arriving in the live tail', async () => {
    const { page } = await shared.show('overview', 'Overview');
    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByTestId('tail-state').filter({ hasText: 'live' }).waitFor();
    await eventually(async () => (await page.getByTestId('event-row').count()) >= 2, 30_000);
    expect(await page.getByTestId('event-row').first().textContent()).toMatch(
      /^\d+[a-z_]+\.[a-z_]+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d.+JSON of event \d+\{\n {2}"id": \d+,\n {2}"type":/,
    );
  });

  it('refuses a cross-site form post that carries the session cookie, and changes nothing', async () => {
    await signIn();
    const attacker = await attackerPage(stack.adminUrl);
    try {
      const answered = page.waitForResponse((response) => response.url().endsWith('/admin/v1/api'));
      await page.goto(attacker.url);
      const response = await answered;
      expect(
        response.request().headers()['cookie'] ?? (await response.request().allHeaders())['cookie'],
      ).toContain('modgate_session=');
      expect([403, 415]).toContain(response.status());
      const api = await (
        await fetch(`${stack.adminUrl}/admin/v1/api`, { headers: { authorization: `Bearer ${stack.token}` } })
      ).json();
      expect(api).toMatchObject({ enabled: true });
    } finally {
      attacker.server.close();
    }
  });

  it('signs out, after which the cookie no longer works', async () => {
    await signIn();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin token').waitFor();
    const status = await page.evaluate(async () => (await fetch('/admin/v1/status')).status);
    expect(status).toBe(401);
  });
});

/**
 * Another origin on the same machine (same site: another port of 127.0.0.1, so even
 * SameSite=Strict lets the cookie go) whose page posts a form at the admin API, `text/plain`
 * carrying JSON: the classic cross-site request against a loopback admin port.
 */
async function attackerPage(adminUrl: string): Promise<{ server: Server; url: string }> {
  const html = `<!doctype html><form method="POST" action="${adminUrl}/admin/v1/api" enctype="text/plain">
<input name='{"enabled":false,"x":"' value='"}'></form><script>document.forms[0].submit()</script>`;
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}
