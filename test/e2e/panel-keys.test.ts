/**
 * The panel's Keys and Plan pages in a real Chromium against real `serve` and `sim` (issue 34,
 * section 1): destructive actions ask first and say what happens, a roll chain, revoked and
 * expired keys behind a toggle, editing a key, the create form's scopes, presets and checks
 * before sending, the new secret announced once, an inactive plan said as such; and every state
 * free of axe violations and sideways scroll at a laptop's and a phone's size, light and dark.
 *
 * Run when a Chromium is found, as test/e2e/panel.test.ts is.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumForTests } from '../../harness/browser.ts';
import {
  problemsInEveryLook,
  sharedPanel,
  type PanelPage,
  type SharedPanel,
} from '../../harness/panel-browser.ts';
import { startPanelStack, type PanelStack } from '../../harness/panel-stack.ts';

const chromium = chromiumForTests('test/e2e/panel-keys.test.ts');

const LONG_NAME = 'a-bot-with-a-rather-long-name-'.repeat(3).slice(0, 90);

describe.runIf(chromium.run)('the Keys and Plan pages in Chromium', () => {
  let stack: PanelStack;
  let browser: Browser;
  /** Every test's page: none here ends its session or signs in with another token. */
  let panel: SharedPanel;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startPanelStack({ eventsRate: 60 }), chromium.launch()]);
    panel = sharedPanel(browser, stack);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  async function admin<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${stack.adminUrl}/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${stack.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.ok, `${method} ${path}: ${response.status}`).toBe(true);
    return (response.status === 204 ? undefined : await response.json()) as T;
  }

  function v1(path: string, key: string): Promise<number> {
    return fetch(`${stack.apiUrl}${path}`, { headers: { authorization: `Bearer ${key}` } }).then(
      (r) => r.status,
    );
  }

  function keysPage(): Promise<PanelPage> {
    return panel.show('keys', 'Keys');
  }

  it('says Loading… while the list loads, and that there are no keys yet, not an empty table', async () => {
    // Another page first: the route must stand before the Keys page asks for its list.
    const { page, go } = await panel.show('plan', 'Plan');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/admin/v1/keys?*', async (route) => {
      await held;
      await route.continue();
    });
    await go('keys', 'Keys');
    await page.getByRole('cell', { name: 'Loading…' }).waitFor();
    release();
    await page.getByRole('cell', { name: 'No keys yet: create one for each bot.' }).waitFor();
  });

  it('revokes a key only once confirmed, saying what happens, from a button named for the key', async () => {
    const created = await stack.data.createKey('--name', 'revoke-me', '--scopes', 'server:read');
    const { page } = await keysPage();
    await page.getByRole('button', { name: 'Revoke key revoke-me' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke the key revoke-me?' });
    await dialog.getByText('Every bot using this key gets 401 at once').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe(
      'Revoke key revoke-me',
    );
    expect(await v1('/v1/server', created.key)).toBe(200);
    await page.getByRole('button', { name: 'Revoke key revoke-me' }).click();
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await page.getByTestId('key-row').filter({ hasText: 'revoke-me' }).waitFor({ state: 'detached' });
    expect(await v1('/v1/server', created.key)).toBe(401);
  });

  it('hides revoked and expired keys behind a toggle that counts them', async () => {
    const gone = await stack.data.createKey('--name', 'hidden-when-revoked', '--scopes', 'server:read');
    await admin('DELETE', `/keys/${gone.id}`);
    const { page } = await keysPage();
    await page.getByRole('cell', { name: 'Loading…' }).waitFor({ state: 'detached' }); // count the loaded list
    const toggle = page.getByLabel(/^Show revoked and expired \(\d+\)$/);
    const count = Number(/\((\d+)\)/.exec((await toggle.locator('..').textContent()) ?? '')?.[1]);
    const all = await admin<{ data: { status: string }[] }>('GET', '/keys?limit=100');
    expect(count).toBe(all.data.filter((key) => key.status !== 'active').length);
    const row = page.getByTestId('key-row').filter({ hasText: 'hidden-when-revoked' });
    expect(await row.count()).toBe(0);
    await toggle.check();
    await row.getByText('revoked', { exact: true }).waitFor();
    expect(await row.getByRole('button').count()).toBe(0);
  });

  it('rolls a key once confirmed, and shows the old key under the one that replaced it, with when it stops', async () => {
    const old = await stack.data.createKey('--name', 'roll-me', '--scopes', 'server:read');
    const { page } = await keysPage();
    await page.getByLabel('Old key of roll-me stops').selectOption('1d');
    await page.getByRole('button', { name: 'Roll key roll-me' }).click();
    const dialog = page.getByRole('dialog', { name: 'Roll the key roll-me?' });
    await dialog.getByText('The old key keeps working in 1 day').waitFor();
    await dialog.getByRole('button', { name: 'Roll' }).click();
    const secret = (await page.getByTestId('new-key').textContent())!.trim();
    expect(await v1('/v1/server', secret)).toBe(200);
    expect(await v1('/v1/server', old.key)).toBe(200);
    const rows = page.getByTestId('key-row').filter({ hasText: 'roll-me' });
    await rows
      .nth(1)
      .getByText(/Replaced by [a-z0-9]{12}; stops working at \d{4}-/)
      .waitFor();
    await rows.nth(0).getByText(`Replaces ${old.id}`).waitFor();
    expect(await rows.nth(1).getAttribute('data-key-id')).toBe(old.id);
    // Two keys named roll-me: each button says which by its id too.
    await page.getByRole('button', { name: `Revoke key roll-me (${old.id})` }).waitFor();
  });

  it('edits a key’s name, allowed addresses and expiry, moving focus into the form and back', async () => {
    await stack.data.createKey('--name', 'edit-me', '--scopes', 'server:read');
    const { page } = await keysPage();
    await page.getByRole('button', { name: 'Edit key edit-me' }).click();
    const form = page.getByRole('form', { name: 'Edit key edit-me' });
    await expect.poll(() => page.evaluate('document.activeElement?.name')).toBe('name');
    await form.getByLabel('Name', { exact: true }).fill('edited');
    await form.getByLabel(/^Allowed addresses/).fill('10.1.2.3/8');
    await form.getByText('10.1.2.3/8 will be saved as 10.0.0.0/8').waitFor();
    await form.getByLabel('Expires').selectOption('7d');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    const row = page.getByTestId('key-row').filter({ hasText: 'edited' });
    await row.getByText('10.0.0.0/8').waitFor();
    expect(await row.locator('td').nth(5).textContent()).toMatch(/^\d{4}-/);
    // The same button, renamed with the key.
    expect(await page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe('Edit key edited');
  });

  it('describes each scope, ticks a preset’s scopes, and refuses in words before sending', async () => {
    const { page } = await keysPage();
    await page.getByRole('button', { name: 'Create key' }).click();
    const form = page.getByRole('form', { name: 'New key' });
    await expect.poll(() => page.evaluate('document.activeElement?.name')).toBe('name');
    await form.getByText('Ban and unban players.').waitFor();
    await form.getByLabel('Name', { exact: true }).fill('x'.repeat(150));
    expect((await form.getByLabel('Name', { exact: true }).inputValue()).length).toBe(150);
    await form.getByText('A key name is at most 100 characters; this one is 150.').waitFor();
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await form.getByRole('alert').getByText('at most 100 characters').waitFor();
    await form.getByLabel('Name', { exact: true }).fill('shop');
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await form.getByRole('alert').getByText('Choose at least one scope.').waitFor();
    await form.getByRole('button', { name: 'Shop bot' }).click();
    expect(await form.getByLabel('packs:deliver', { exact: true }).isChecked()).toBe(true);
    expect(await form.getByLabel('players:ban', { exact: true }).isChecked()).toBe(false);
    await form.getByLabel(/^Allowed addresses/).fill('192.168.1.5/24\nnot-an-address');
    await form.getByText('192.168.1.5/24 will be saved as 192.168.1.0/24').waitFor();
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await form.getByRole('alert').getByText('Not an IP address or CIDR range: not-an-address').waitFor();
    await form.getByLabel(/^Allowed addresses/).fill('192.168.1.5/24');
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    const status = page.getByRole('status', { name: 'New key shop' });
    await status.getByRole('button', { name: 'Copy' }).waitFor();
    expect((await status.getByTestId('new-key').textContent())!.trim()).toMatch(/^mg_live_/);
    await page.getByTestId('key-row').filter({ hasText: '192.168.1.0/24' }).waitFor();
  });

  it('confirms turning the API off, saying /v1 answers 404, and enables it with one click', async () => {
    const created = await stack.data.createKey('--name', 'switch-watcher', '--scopes', 'server:read');
    const { page } = await panel.show('plan', 'Plan');
    await page.getByRole('button', { name: 'Disable API' }).click();
    const dialog = page.getByRole('dialog', { name: 'Disable the API?' });
    await dialog.getByText('Every /v1 request is answered 404 not_found').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await v1('/v1/server', created.key)).toBe(200);
    await page.getByRole('button', { name: 'Disable API' }).click();
    await dialog.getByRole('button', { name: 'Disable API' }).click();
    await page.getByRole('button', { name: 'Enable API' }).click();
    await page.getByRole('button', { name: 'Disable API' }).waitFor();
    expect(await v1('/v1/server', created.key)).toBe(200);
  });

  it('shows an expired plan as inactive with what that does, and confirms a plan change that turns /v1 off', async () => {
    const { page, go } = await panel.show('plan', 'Plan');
    try {
      await page.getByTestId('plan-state').getByText('Premium, active').waitFor();
      await page.getByLabel('Until (ISO date, empty for no end)').fill('2020-01-01');
      await page.getByRole('button', { name: 'Save plan' }).click();
      const dialog = page.getByRole('dialog', { name: 'Save a plan that turns /v1 off?' });
      await dialog.getByText('403 premium_required').waitFor();
      await dialog.getByRole('button', { name: 'Save plan' }).click();
      const state = page.getByTestId('plan-state');
      await state.getByText(/^Inactive: premium ended 20(19|20)-.*403 premium_required/).waitFor();
      expect(await state.textContent()).not.toContain('until');
      await go('keys', 'Keys');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByLabel('Name', { exact: true }).fill('refused');
      await page.getByLabel('server:read', { exact: true }).check();
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('alert').getByText('no active premium plan, so no key can be created').waitFor();
    } finally {
      await admin('PUT', '/plan', { premium: true, features: ['shop'] });
    }
  });

  it('has no axe violations and no sideways scroll in any look, with a long name, a roll, the form and a dialog', async () => {
    const long = await stack.data.createKey('--name', LONG_NAME, '--scopes', 'server:read');
    await admin('POST', `/keys/${long.id}/roll`, { expire_old_in: '1h' });
    const { page } = await keysPage();
    await page.getByTestId('key-row').filter({ hasText: LONG_NAME }).first().waitFor();
    const problems = await problemsInEveryLook(page, 'the list');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel(/^Allowed addresses/).fill('192.168.1.5/24');
    problems.push(...(await problemsInEveryLook(page, 'the create form')));
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page
      .getByRole('button', { name: new RegExp(`^Revoke key ${LONG_NAME}`) })
      .first()
      .click();
    await page.getByRole('dialog').waitFor();
    problems.push(...(await problemsInEveryLook(page, 'a confirm dialog')));
    await page.keyboard.press('Escape');
    expect(problems).toEqual([]);
  });
});
