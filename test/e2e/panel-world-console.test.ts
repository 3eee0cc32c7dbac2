/**
 * The panel's World and Console pages in Chromium against a real serve and sim: each World kind
 * filtered and paged to its second page (the rows the game route answers for the same filter),
 * a row opened to its details; a command chosen from the catalogue's suggestions with the keyboard
 * alone, run through the dialog, its answer shown and its history row listed; then axe-core
 * (every rule) and the page's width at phone and desktop sizes, light and dark.
 *
 * Skipped with a note when no Chromium is found, unless MODGATE_REQUIRE_CHROMIUM=1 (as in
 * test/e2e/panel.test.ts).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRequest } from '../../harness/admin.ts';
import { chromiumForTests } from '../../harness/browser.ts';
import {
  mainOverflowing,
  problemsInEveryLook,
  sharedPanel,
  type SharedPanel,
} from '../../harness/panel-browser.ts';
import { startPanelStack, type PanelStack } from '../../harness/panel-stack.ts';

const chromium = chromiumForTests('test/e2e/panel-world-console.test.ts');

/** Each kind, a filter the page sets (a field and its value) and the same filter as a query. */
const KINDS = [
  {
    title: 'Squads',
    detail: 'Kills / deaths',
    field: 'Members at least',
    value: '2',
    query: 'min_members=2',
    key: 'name',
  },
  {
    title: 'Bases',
    detail: 'Containers in this base',
    field: 'Elements at least',
    value: '1',
    query: 'min_elements=1',
    key: 'flag_id',
  },
  {
    title: 'Vehicles',
    detail: 'Inventory',
    field: 'Locked',
    value: 'true',
    query: 'is_locked=true',
    key: 'entity_id',
  },
  {
    title: 'Containers',
    detail: 'Inventory',
    field: 'Buried',
    value: 'false',
    query: 'is_buried=false',
    key: 'entity_id',
  },
] as const;

describe.runIf(chromium.run)('the World and Console pages in Chromium', () => {
  let stack: PanelStack;
  let browser: Browser;
  /** Every test's page: none here ends its session or signs in with another token. */
  let shared: SharedPanel;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startPanelStack({ eventsRate: 0 }), chromium.launch()]);
    shared = sharedPanel(browser, stack);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  /** Pages 1 and 2 of a game list as the admin API answers them over admin.sock. */
  async function twoPages(path: string): Promise<[Record<string, unknown>[], Record<string, unknown>[]]> {
    const first = await adminRequest({ dataDir: stack.data.dir, path: `/admin/v1/game/${path}&limit=10` });
    const one = first.json as { data: Record<string, unknown>[]; next_cursor: string | null };
    expect(one.next_cursor, `${path} has a second page`).not.toBeNull();
    const second = await adminRequest({
      dataDir: stack.data.dir,
      path: `/admin/v1/game/${path}&limit=10&cursor=${encodeURIComponent(one.next_cursor as string)}`,
    });
    return [one.data, (second.json as { data: Record<string, unknown>[] }).data];
  }

  it('browses each kind with a filter to its second page and opens a row', async () => {
    const panel = await shared.show('world', 'World');
    const { page } = panel;
    for (const kind of KINDS) {
      const [, second = []] = await twoPages(`${kind.title.toLowerCase()}?${kind.query}`);
      await page.getByRole('button', { name: kind.title, exact: true }).click();
      await page.getByRole('heading', { level: 2, name: kind.title }).waitFor();
      const field = page.getByLabel(kind.field, { exact: true });
      if (kind.field === 'Locked' || kind.field === 'Buried') await field.selectOption(kind.value);
      else await field.fill(kind.value);
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText('Page 2').waitFor();
      const rows = page.getByTestId('world-row');
      await expect.poll(() => rows.count()).toBe(second.length);
      const firstOfSecond = String((second[0] as Record<string, unknown>)[kind.key]);
      // The row's Details button names it: a squad's name, a flag id, an entity id.
      await rows
        .first()
        .getByRole('button', {
          name: new RegExp(`^Details of .*${firstOfSecond.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
        })
        .click();
      const details = page.getByTestId('world-details');
      await details.getByText(kind.detail).first().waitFor();
      await expect.poll(() => details.getByText('Loading…').count()).toBe(0);
    }
  });

  it('offers no next page while a new filter loads, so Next never pairs the old answer’s cursor with it', async () => {
    const panel = await shared.show('world', 'World');
    const { page } = panel;
    await page.getByRole('button', { name: 'Squads', exact: true }).click();
    const next = page.getByRole('button', { name: 'Next page' });
    await expect.poll(() => next.isEnabled()).toBe(true);
    // The filtered page is held until the check below has run: the unfiltered page, with its
    // next cursor, is still what the table shows.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = () => {};
    const requested = new Promise<void>((resolve) => (asked = resolve));
    await page.route(/\/admin\/v1\/game\/squads\?.*min_members=2/, async (route) => {
      asked();
      await held;
      await route.continue();
    });
    await page.getByLabel('Members at least', { exact: true }).fill('2');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await requested;
    expect(await next.isDisabled()).toBe(true);
    release();
    const [, second = []] = await twoPages('squads?min_members=2');
    await expect.poll(() => next.isEnabled()).toBe(true);
    await next.click();
    await page.getByText('Page 2').waitFor();
    await expect.poll(() => page.getByTestId('world-row').count()).toBe(second.length);
    await page.unrouteAll();
  });

  it('shows the API refusal of a filter in place of rows', async () => {
    const panel = await shared.show('world', 'World');
    const { page } = panel;
    await page.getByLabel('Squad name contains').fill('a');
    await page.getByLabel('Members at least').fill('2');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page
      .getByRole('alert')
      .getByText(/validation_error/)
      .waitFor();
    await expect(page.getByTestId('world-row').count()).resolves.toBe(0);
  });

  it('runs a command chosen from the suggestions with the keyboard alone and lists it in the history', async () => {
    const panel = await shared.show('console', 'Console');
    const { page } = panel;
    const words = `panel test ${Date.now()}`;
    const verb = page.getByRole('combobox', { name: 'Command' });
    await verb.waitFor();
    // Tab from the top of the page until the command field has focus: it is reachable by Tab.
    const focused = () => page.evaluate('document.activeElement?.id') as Promise<string | undefined>;
    for (let presses = 0; presses < 40 && (await focused()) !== 'command-verb'; presses++)
      await page.keyboard.press('Tab');
    await expect(focused()).resolves.toBe('command-verb');
    await page.keyboard.type('annou');
    await page.getByRole('option', { name: /^Announce/ }).waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect(verb.inputValue()).resolves.toBe('Announce');
    await page.getByTestId('command-help').getByText('#Announce <message…>').waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.type(words);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Run Announce in the game?' });
    await dialog.waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByTestId('command-result').getByRole('heading', { name: 'Announce: done' }).waitFor();
    const row = page.getByTestId('history-row').filter({ hasText: words });
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('nobody named');
    await row.getByRole('cell', { name: 'panel console', exact: true }).waitFor();
    await page.getByLabel('Command contains').fill(words);
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await expect.poll(() => page.getByTestId('history-row').count()).toBe(1);
    const history = await adminRequest({
      dataDir: stack.data.dir,
      path: `/admin/v1/game/commands/history?command=${encodeURIComponent(words)}`,
    });
    expect((history.json as { data: { actor: unknown }[] }).data).toEqual([
      expect.objectContaining({ actor: { platform_id: null, social_id: null } }),
    ]);
  });

  it('has no axe violation and fits the page in any look, with a row’s details and a command’s help', async () => {
    const panel = await shared.show('world', 'World');
    const { page } = panel;
    await page.getByRole('button', { name: 'Vehicles', exact: true }).click();
    await page
      .getByTestId('world-row')
      .first()
      .getByRole('button', { name: /^Details of / })
      .click();
    await page.getByRole('heading', { level: 3, name: 'Inventory' }).waitFor();
    const problems = await problemsInEveryLook(page, 'World, a vehicle', mainOverflowing);
    await panel.go('console', 'Console');
    await page.getByRole('combobox', { name: 'Command' }).fill('Teleport');
    await page.getByTestId('command-help').waitFor();
    await page.getByTestId('history-row').first().waitFor();
    problems.push(...(await problemsInEveryLook(page, 'Console, a command', mainOverflowing)));
    expect(problems).toEqual([]);
  });
});
