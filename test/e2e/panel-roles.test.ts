/**
 * Staff roles in the panel, in a real Chromium against real `serve` and `sim` (docs/admin.md,
 * "Roles" and "Staff sign-in"): a moderator sees only the pages its role may use and the API
 * refuses it the others; the owner's Tokens page adds a person and answers a sign-in link that
 * signs a phone in as them; revoking them signs their idle open page out within a second; the
 * Tokens page's Add person form passes axe-core in both schemes at both sizes without scrolling
 * sideways (the list as it loads is test/e2e/panel-shell.test.ts's walk's).
 *
 * Run when a Chromium is found, as test/e2e/panel.test.ts (MODGATE_REQUIRE_CHROMIUM=1 requires it).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRequest } from '../../harness/admin.ts';
import { chromiumForTests } from '../../harness/browser.ts';
import { runOk } from '../../harness/cli.ts';
import type { Page } from 'playwright-core';
import {
  openPanel,
  PHONE,
  problemsInEveryLook,
  sharedPanel,
  type SharedPanel,
} from '../../harness/panel-browser.ts';
import { startPanelStack, type PanelStack } from '../../harness/panel-stack.ts';

const chromium = chromiumForTests('test/e2e/panel-roles.test.ts');

/**
 * The elements of the page's main part that reach past the viewport (a table scrolls inside its
 * own box and is not counted). The header's own wrapping at 390 px is the shell's, fixed with the
 * phone layout of issue 34 §1; harness/panel-browser.ts's sideScroll checks the whole page once
 * that has landed.
 */
function pageOverflow(page: Page): Promise<string[]> {
  return page.evaluate(`[...document.querySelectorAll('main *')]
    .filter((element) => !element.closest('.table-box') && element.getBoundingClientRect().right > innerWidth)
    .map((element) => element.tagName + '.' + element.className)`) as Promise<string[]>;
}

const OWNER_PAGES = ['Keys', 'Plan', 'Webhooks', 'Audit', 'Events', 'Tokens'];

describe.runIf(chromium.run)('staff roles in the panel', () => {
  let stack: PanelStack;
  let browser: Browser;
  /** The owner's page; a staff member's session is opened by its own test, with its token. */
  let shared: SharedPanel;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startPanelStack(), chromium.launch()]);
    shared = sharedPanel(browser, stack);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  async function staffToken(name: string, role: string): Promise<{ id: string; token: string }> {
    const args = ['admin', 'tokens', 'create', '--data-dir', stack.data.dir, '--name', name, '--role', role];
    return JSON.parse(await runOk([...args, '--json'])) as { id: string; token: string };
  }

  it('shows a moderator only its pages, and the API answers it 403 forbidden on the owner’s', async () => {
    const { token } = await staffToken('mia', 'moderator');
    const panel = await openPanel(browser, stack, { token });
    try {
      await expect(panel.page.getByRole('link', { name: 'Overview', exact: true }).count()).resolves.toBe(1);
      for (const name of OWNER_PAGES) {
        await expect(panel.page.getByRole('link', { name, exact: true }).count()).resolves.toBe(0);
      }
      await panel.page.getByText('Signed in with mia').waitFor();
      // The browser's own session, and the token on its own: the API refuses both, not only the nav.
      const statuses = (await panel.page.evaluate(
        `Promise.all(['/keys', '/plan', '/webhooks', '/tokens', '/audit'].map((path) =>
          fetch('/admin/v1' + path).then((response) => response.status)))`,
      )) as number[];
      expect(statuses).toEqual([403, 403, 403, 403, 403]);
      const direct = await adminRequest({ url: stack.adminUrl, token, path: '/admin/v1/keys' });
      expect(direct.json).toMatchObject({ error: { code: 'forbidden' } });
    } finally {
      await panel.close();
    }
  });

  it('signs an idle open page out once its token is revoked, with no click or navigation', async () => {
    const { id, token } = await staffToken('leo', 'viewer');
    const panel = await openPanel(browser, stack, { token });
    try {
      await panel.page.getByText('Signed in with leo').waitFor();
      const revoked = await adminRequest({
        dataDir: stack.data.dir,
        method: 'DELETE',
        path: `/admin/v1/tokens/${id}`,
      });
      expect(revoked.status).toBe(204);
      // No click, no navigation, no polling in the panel: the page can learn it only from the
      // session watch it holds. How soon is no test's business (load can eat any margin).
      await panel.page.getByLabel('Admin token').waitFor();
      await panel.page.getByText(/Your session ended/).waitFor();
    } finally {
      await panel.close();
    }
  });

  it('adds a person on the Tokens page and signs a phone in with the link it shows, once', async () => {
    const owner = await shared.show('tokens', 'Tokens');
    const phone = await browser.newContext({ viewport: PHONE });
    const other = await browser.newContext();
    try {
      await owner.page.getByRole('button', { name: 'Add person' }).click();
      await owner.page.getByLabel('Name', { exact: true }).fill('ana');
      await owner.page.getByLabel(/Moderator:/).check();
      await owner.page.getByRole('button', { name: 'Create' }).click();
      const link = (await owner.page.getByTestId('invite-link').textContent()) ?? '';
      expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login#[A-Za-z0-9]{40}$/);
      const page = await phone.newPage();
      await page.goto(link);
      await page.getByText('Signed in with ana').waitFor();
      expect(page.url()).not.toContain(link.split('#')[1]);
      await expect(page.getByRole('link', { name: 'Keys', exact: true }).count()).resolves.toBe(0);
      const again = await other.newPage();
      await again.goto(link);
      await again.getByText(/not valid/).waitFor();
      await owner.page.getByRole('button', { name: 'Done' }).click();
      await owner.page.getByRole('button', { name: 'Revoke ana' }).click();
      await owner.page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
      await page.getByLabel('Admin token').waitFor();
    } finally {
      await other.close();
      await phone.close();
    }
  });

  // The form shows above this file's rows (revoked ones too), so one state checks both; the page
  // as it loads, with its Add person button, is the shell's walk's (test/e2e/panel-shell.test.ts).
  it('has no axe-core violation on the Tokens page with the Add person form open in any look, and fits a phone', async () => {
    const panel = await shared.show('tokens', 'Tokens');
    await panel.page.getByTestId('token-row').first().waitFor();
    await panel.page.getByRole('button', { name: 'Add person' }).click();
    await panel.page.getByLabel('Name', { exact: true }).waitFor();
    expect(await problemsInEveryLook(panel.page, 'the Add person form', pageOverflow)).toEqual([]);
  });
});
