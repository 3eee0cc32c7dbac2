/**
 * The panel's Economy and Shop pages in Chromium against a real serve and sim (one of each for the
 * file): credit and set a player's balances and read the ledger entry with source panel; a
 * credit whose answer was lost sent again with the same Idempotency-Key, applied once; the
 * game's bulk coin cooldown shown from its answer; deliver a pack, mint a claim code (source
 * panel) and revoke it; the main flows by keyboard alone; then axe-core (every rule) and the
 * page's width at phone and desktop sizes, light and dark.
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
  tabTo,
  type PanelPage,
  type SharedPanel,
} from '../../harness/panel-browser.ts';
import { startPanelStack, type PanelStack } from '../../harness/panel-stack.ts';

const chromium = chromiumForTests('test/e2e/panel-economy-shop.test.ts');

/** How many presses of Tab a keyboard walk here may take to reach a control: the shop's rows are many. */
const MOST_TABS = 400;

interface Online {
  platform_id: string;
  name: string;
}

interface LedgerEntry {
  player: { platform_id: string } | null;
  amount: number;
  source: string;
  reason: string;
}

describe.runIf(chromium.run)('the Economy and Shop pages in Chromium', () => {
  let stack: PanelStack;
  let browser: Browser;
  let online: Online[];
  /** The catalogue's newest pack: the first row of the Shop page. */
  let packName: string;
  /** Every test's page: none here ends its session or signs in with another token. */
  let shared: SharedPanel;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startPanelStack({ eventsRate: 0 }), chromium.launch()]);
    shared = sharedPanel(browser, stack);
    const snapshot = await adminRequest({ dataDir: stack.data.dir, path: '/admin/v1/game/players/online' });
    online = (snapshot.json as { data: Online[] }).data;
    const packs = await adminRequest({ dataDir: stack.data.dir, path: '/admin/v1/game/packs?limit=1' });
    packName = (packs.json as { data: { display_name: string }[] }).data[0]?.display_name ?? '';
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  function ledger(params: string): Promise<LedgerEntry[]> {
    return adminRequest({
      dataDir: stack.data.dir,
      path: `/admin/v1/game/economy/transactions?${params}`,
    }).then((answer) => (answer.json as { data: LedgerEntry[] }).data);
  }

  /** The Economy page with `player` found by platform id and opened. */
  async function openPlayer(panel: PanelPage, player: Online): Promise<void> {
    const { page } = panel;
    await panel.go('economy', 'Economy');
    await page.getByLabel('Search by').selectOption('platform_id');
    await page.getByLabel('Player', { exact: true }).fill(player.platform_id);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: `Open ${player.name}` }).click();
    await page.getByRole('heading', { level: 2, name: player.name }).waitFor();
  }

  it('shows an untouched change form as a hint, not an error, and keeps its buttons waiting', async () => {
    const panel = await shared.show('economy', 'Economy');
    const hint = panel.page.locator('#everyone-change-hint');
    await expect(hint.getAttribute('class')).resolves.toBe('hint');
    await expect(
      panel.page
        .getByRole('button', { name: /^Credit/ })
        .first()
        .isDisabled(),
    ).resolves.toBe(true);
    await panel.page.getByLabel('Everyone amount').fill('-3');
    await panel.page.getByLabel('Everyone reason').fill('r');
    await expect(hint.getAttribute('class')).resolves.toBe('error');
  });

  it('credits a player’s coins with a reason and shows the ledger entry with source panel', async () => {
    const player = online[0] as Online;
    const panel = await shared.show('economy', 'Economy');
    const { page } = panel;
    await openPlayer(panel, player);
    await page.getByLabel('Player amount').fill('250');
    await page.getByLabel('Player reason').fill('Tournament prize from the panel');
    await page.getByRole('button', { name: `Credit shop coins of ${player.name}` }).click();
    await page
      .getByTestId('economy-answer')
      .getByText(new RegExp(`shop coins credit 250: ${player.name} now has [\\d,]+\\.`))
      .waitFor();
    const row = page.getByTestId('ledger-row').filter({ hasText: 'Tournament prize from the panel' });
    await row.getByRole('cell', { name: 'panel', exact: true }).waitFor();
    await row.getByRole('cell', { name: '+250' }).waitFor();
    const entries = await ledger(`platform_id=${player.platform_id}&source=panel&asset=coins`);
    expect(entries[0]).toMatchObject({
      amount: 250,
      source: 'panel',
      reason: 'Tournament prize from the panel',
    });
  });

  it('sends a credit again after its answer was lost with the same Idempotency-Key, so it applies once', async () => {
    const player = online[2] as Online;
    const reason = 'Prize whose answer was lost';
    const panel = await shared.show('economy', 'Economy');
    const { page } = panel;
    const keys: (string | undefined)[] = [];
    const coins = `**/admin/v1/game/players/${player.platform_id}/coins`;
    let lose = true;
    // The daemon gets the first credit and applies it, but the browser never sees the answer.
    await page.route(coins, async (route) => {
      keys.push(route.request().headers()['idempotency-key']);
      if (!lose) return route.continue();
      lose = false;
      await route.fetch();
      await route.abort('connectionreset');
    });
    const credit = async () => {
      await page.getByLabel('Player amount').fill('40');
      await page.getByLabel('Player reason').fill(reason);
      await page.getByRole('button', { name: `Credit shop coins of ${player.name}` }).click();
    };
    await openPlayer(panel, player);
    await credit();
    await page.getByRole('alert').getByText('The daemon did not answer').waitFor();
    await credit();
    await page
      .getByTestId('economy-answer')
      .getByText(/shop coins credit 40/)
      .waitFor();
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^panel-[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);
    const applied = await ledger(`platform_id=${player.platform_id}&source=panel&asset=coins`);
    expect(applied.filter((entry) => entry.reason === reason)).toHaveLength(1);
    // The same change made again is a new submission: a new key, a second entry.
    await credit();
    await expect
      .poll(async () => {
        const entries = await ledger(`platform_id=${player.platform_id}&source=panel&asset=coins`);
        return entries.filter((entry) => entry.reason === reason).length;
      })
      .toBe(2);
    expect(keys).toHaveLength(3);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('sets a connected player’s gold only after the dialog, and says the balance before and after', async () => {
    const player = online[1] as Online;
    const panel = await shared.show('economy', 'Economy');
    const { page } = panel;
    await openPlayer(panel, player);
    await page.getByLabel('Player asset').selectOption('gold');
    await page.getByLabel('Player amount').fill('77');
    await page.getByLabel('Player reason').fill('Correcting a duplicated reward');
    await page.getByRole('button', { name: `Set gold of ${player.name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Set gold of ${player.name}?` });
    await dialog.getByText(`The gold of ${player.name} becomes exactly 77, whatever it was.`).waitFor();
    await dialog.getByRole('button', { name: 'Set' }).click();
    await page
      .getByTestId('economy-answer')
      .getByText(new RegExp(`gold set 77: ${player.name} now has 77 \\(was [\\d,]+\\)\\.`))
      .waitFor();
    const entries = await ledger(`platform_id=${player.platform_id}&source=panel&asset=gold`);
    expect(entries[0]).toMatchObject({ amount: 77, source: 'panel' });
  });

  it('shows the game’s bulk coin cooldown when a bulk change lands inside it, and lifts it when it ends', async () => {
    const panel = await shared.show('economy', 'Economy');
    const { page } = panel;
    await page.getByLabel('Everyone amount').fill('1');
    await page.getByLabel('Everyone reason').fill('Server anniversary');
    // Another caller (a bot, a second operator) starts the game's cooldown just before.
    const first = await adminRequest({
      dataDir: stack.data.dir,
      method: 'POST',
      path: '/admin/v1/game/economy/coins',
      body: { amount: 1, reason: 'Anniversary, first', target: 'online' },
    });
    expect(first.status).toBe(200);
    await page.getByRole('button', { name: 'Credit shop coins of every player on record' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Credit' }).click();
    await page
      .getByTestId('bulk-cooldown')
      .getByText(/^The game’s bulk coin cooldown is running: ready again in [1-5] s\.$/)
      .waitFor();
    const credit = page.getByRole('button', { name: 'Credit shop coins of every player on record' });
    await expect(credit.isDisabled()).resolves.toBe(true);
    await page
      .getByRole('alert')
      .getByText(/rate_limited/)
      .waitFor();
    await page
      .getByTestId('bulk-cooldown')
      .getByText(/ready again/)
      .waitFor({ state: 'detached', timeout: 10_000 });
    await expect(credit.isDisabled()).resolves.toBe(false);
    const bulk = await ledger('source=panel&scope=all&asset=coins');
    expect(bulk.filter((entry) => entry.reason === 'Server anniversary')).toEqual([]);
  });

  it('delivers a pack after the dialog, mints a claim code with source panel and revokes it', async () => {
    const player = online[2] as Online;
    const { page } = await shared.show('shop', 'Shop');
    const name = packName;
    await page.getByRole('button', { name: `Choose ${name}` }).click();
    await page.getByRole('heading', { level: 2, name }).waitFor();
    await page.getByLabel('Recipient', { exact: true }).fill(player.platform_id);
    await page.getByRole('button', { name: `Deliver ${name}` }).click();
    await page.getByRole('dialog', { name: `Deliver 1 × ${name} to ${player.platform_id}?` }).waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Deliver' }).click();
    const answer = await page.getByTestId('delivery-answer').getByText(/^The game answered: delivery (\d+) /);
    await answer.waitFor();
    const id = /delivery (\d+)/.exec((await answer.textContent()) ?? '')?.[1] ?? '';
    await page
      .getByTestId('delivery-row')
      .filter({ hasText: player.platform_id })
      .getByRole('cell', { name: id, exact: true })
      .waitFor();

    await page.getByLabel('For platform id (empty: anyone)').fill(player.platform_id);
    await page.getByRole('button', { name: 'Mint code' }).click();
    const code = (await page.getByTestId('minted').locator('code').textContent()) ?? '';
    expect(code).not.toBe('');
    const codeRow = page.getByTestId('code-row').filter({ hasText: code });
    await codeRow.getByRole('cell', { name: 'panel', exact: true }).waitFor();
    await codeRow.getByRole('button', { name: `Revoke code ${code}` }).click();
    await page
      .getByRole('dialog', { name: `Revoke the code ${code}?` })
      .getByRole('button', { name: 'Revoke' })
      .click();
    await codeRow.getByRole('cell', { name: 'revoked', exact: true }).waitFor();
    const codes = await adminRequest({
      dataDir: stack.data.dir,
      path: `/admin/v1/game/claim-codes?source=panel&target=${player.platform_id}`,
    });
    expect((codes.json as { data: { code: string; status: string }[] }).data).toContainEqual(
      expect.objectContaining({ code, status: 'revoked' }),
    );
  });

  it('credits, debits through the dialog, and revokes a claim code by keyboard alone', async () => {
    const player = online[3] as Online;
    const panel = await shared.show('economy', 'Economy');
    const { page } = panel;
    await tabTo(page, page.getByLabel('Search by'), MOST_TABS);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    await page.keyboard.type(player.platform_id);
    await page.keyboard.press('Enter');
    await tabTo(page, page.getByRole('button', { name: `Open ${player.name}` }), MOST_TABS);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: player.name }).waitFor();
    await tabTo(page, page.getByLabel('Player amount'), MOST_TABS);
    await page.keyboard.type('40');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Keyboard credit');
    await tabTo(page, page.getByRole('button', { name: `Credit shop coins of ${player.name}` }), MOST_TABS);
    await page.keyboard.press('Enter');
    await page
      .getByTestId('economy-answer')
      .getByText(/shop coins credit 40/)
      .waitFor();
    await tabTo(page, page.getByLabel('Player amount'), MOST_TABS);
    await page.keyboard.type('15');
    await tabTo(page, page.getByRole('button', { name: `Debit shop coins of ${player.name}` }), MOST_TABS);
    await page.keyboard.press('Space');
    // The dialog opens on Cancel; the next stop is its Debit.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page
      .getByTestId('economy-answer')
      .getByText(/shop coins debit 15/)
      .waitFor();

    await panel.go('shop', 'Shop');
    await tabTo(page, page.getByRole('button', { name: `Choose ${packName}` }), MOST_TABS);
    await page.keyboard.press('Enter');
    await tabTo(page, page.getByRole('button', { name: 'Mint code' }), MOST_TABS);
    await page.keyboard.press('Enter');
    const code = (await page.getByTestId('minted').locator('code').textContent()) ?? '';
    await tabTo(page, page.getByRole('button', { name: `Revoke code ${code}` }), MOST_TABS);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page
      .getByTestId('code-row')
      .filter({ hasText: code })
      .getByRole('cell', { name: 'revoked', exact: true })
      .waitFor();
    const entries = await ledger(`platform_id=${player.platform_id}&source=panel&asset=coins`);
    expect(entries.slice(0, 2).map((entry) => entry.amount)).toEqual([-15, 40]);
  });

  it('has no axe violation and fits the page in any look, with a player and the ledger, and a pack with codes and deliveries', async () => {
    const panel = await shared.show('economy', 'Economy');
    const { page } = panel;
    await openPlayer(panel, online[4] as Online);
    await page.getByTestId('ledger-row').first().waitFor();
    const problems = await problemsInEveryLook(page, 'Economy, a player', mainOverflowing);
    await panel.go('shop', 'Shop');
    await page
      .getByRole('button', { name: /^Choose / })
      .first()
      .click();
    await page.getByTestId('code-row').first().waitFor();
    await page.getByTestId('delivery-row').first().waitFor();
    problems.push(...(await problemsInEveryLook(page, 'Shop, a pack', mainOverflowing)));
    expect(problems).toEqual([]);
  });
});
