/**
 * The panel's Players page in Chromium against a real serve and sim: find a player by platform
 * id, see the cap and the game's mute rounding before sending, ban and mute through the
 * confirming dialog, read the game's answer, unban; the game records it with source panel. The
 * same by keyboard alone (Tab, Enter, Space, Escape). Then axe-core (every rule) and sideways
 * scroll at phone and desktop sizes, light and dark.
 *
 * Skipped with a note when no Chromium is found, unless MODGATE_REQUIRE_CHROMIUM=1 (as in
 * test/e2e/panel.test.ts).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRequest } from '../../harness/admin.ts';
import { chromiumForTests } from '../../harness/browser.ts';
import {
  DESKTOP,
  hasFocus,
  LOOKS,
  problemsInEveryLook,
  sharedPanel,
  tabTo,
  type LookCheck,
  type PanelPage,
  type SharedPanel,
} from '../../harness/panel-browser.ts';
import { startPanelStack, type PanelStack } from '../../harness/panel-stack.ts';

const chromium = chromiumForTests('test/e2e/panel-players.test.ts');

interface Row {
  platform_id: string;
  char_name: string;
}

/** The right edge of the rightmost element of `main` (a table scrolls in its own box), in CSS pixels. */
function widestInMain(page: Page): Promise<number> {
  return page.evaluate(
    'Math.max(...[...document.querySelectorAll("main *:not(.table-box *)")].map((el) => el.getBoundingClientRect().right))',
  ) as Promise<number>;
}

/**
 * From now on records, at every change of the player list, its title and the names in its rows
 * (`Online now | Anna, Pavel`), into `window.listSeen`: a row shown under a title it does not belong
 * to is caught even if the next render replaces it.
 */
// Each row's name (its second cell, after Open), or the placeholder row's one cell.
const WATCH_LIST = `(() => {
  const list = document.querySelector('main section.card');
  const seen = (window.listSeen = []);
  const note = () => seen.push(list.querySelector('h2').textContent + ' | ' +
    [...list.querySelectorAll('tbody tr')].map((row) => row.cells[Math.min(1, row.cells.length - 1)].textContent).join(', '));
  new MutationObserver(note).observe(list, { subtree: true, childList: true, characterData: true });
})()`;

describe.runIf(chromium.run)('the Players page in Chromium', () => {
  let stack: PanelStack;
  let browser: Browser;
  let players: Row[];
  /** Every test's page: none here ends its session or signs in with another token. */
  let shared: SharedPanel;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startPanelStack({ eventsRate: 0 }), chromium.launch()]);
    shared = sharedPanel(browser, stack);
    const clean: Row[] = [];
    const list = await adminRequest({ dataDir: stack.data.dir, path: '/admin/v1/game/players?limit=50' });
    for (const row of (list.json as { data: Row[] }).data) {
      const state = await adminRequest({
        dataDir: stack.data.dir,
        path: `/admin/v1/game/players/${row.platform_id}/moderation`,
      });
      const { ban, mute } = state.json as { ban: { banned: boolean }; mute: { muted: boolean } };
      if (!ban.banned && !mute.muted) clean.push(row);
    }
    players = clean;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  /** The Players page with `player` found by platform id and opened. */
  async function openPlayer(panel: PanelPage, player: Row): Promise<void> {
    const { page } = panel;
    await panel.go('players', 'Players');
    await page.getByLabel('Search by').selectOption('platform_id');
    await page.getByLabel('Player', { exact: true }).fill(player.platform_id);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: `Open ${player.char_name}` }).click();
    await page.getByRole('heading', { level: 2, name: player.char_name }).waitFor();
  }

  it('bans a player for 90 minutes through the dialog, shows the game answer, and unbans', async () => {
    const player = players[0] as Row;
    const panel = await shared.show('players', 'Players');
    const { page } = panel;
    await openPlayer(panel, player);
    await page.getByLabel('Ban length').fill('90');
    await page.getByLabel('Ban unit').selectOption('minutes');
    await expect(page.getByTestId('ban-preview').textContent()).resolves.toBe('90 minutes, kept exactly.');
    await page.getByLabel('Ban reason').fill('griefing');
    await page.getByRole('button', { name: `Ban ${player.char_name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Ban ${player.char_name} for 90 minutes?` });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Ban' }).click();
    await page
      .getByTestId('game-answer')
      .getByText(/The game answered: Banned until .*: griefing/)
      .waitFor();
    await page.getByRole('cell', { name: 'panel', exact: true }).first().waitFor();
    await page.getByRole('button', { name: `Unban ${player.char_name}` }).click();
    await page.getByTestId('game-answer').getByText('The game answered: Not banned.').waitFor();
    const violations = await adminRequest({
      dataDir: stack.data.dir,
      path: `/admin/v1/game/players/${player.platform_id}/violations?limit=5`,
    });
    const rows = (violations.json as { data: { action: string; source: string }[] }).data;
    expect(rows.filter((row) => row.action === 'tempban' || row.action === 'unban')).toEqual([
      expect.objectContaining({ source: 'panel' }),
      expect.objectContaining({ source: 'panel' }),
    ]);
  });

  it('shows that a 90-minute mute will be 2 hours before sending, and the game mutes for 2 hours', async () => {
    const player = players[1] as Row;
    const panel = await shared.show('players', 'Players');
    const { page } = panel;
    await openPlayer(panel, player);
    await page.getByLabel('Mute length').fill('90');
    await page.getByLabel('Mute unit').selectOption('minutes');
    await expect(page.getByTestId('mute-preview').textContent()).resolves.toBe(
      '90 minutes will be 2 hours: the game rounds a mute up to whole hours.',
    );
    await page.getByLabel('Mute length').fill('5256001');
    await page.getByTestId('mute-preview').getByText('At most 5256000 minutes.').waitFor();
    await expect(page.getByRole('button', { name: `Mute ${player.char_name}` }).isDisabled()).resolves.toBe(
      true,
    );
    await page.getByLabel('Mute length').fill('90');
    await page.getByRole('button', { name: `Mute ${player.char_name}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Mute' }).click();
    await page
      .getByTestId('game-answer')
      .getByText(/The game answered: Muted for 2 hours on/)
      .waitFor();
    await page.getByRole('button', { name: `Unmute ${player.char_name}` }).click();
    await page.getByTestId('game-answer').getByText('The game answered: Not muted.').waitFor();
  });

  it('finds a player, opens the profile, bans for 90 minutes and unbans with the keyboard alone', async () => {
    const player = players[2] as Row;
    const panel = await shared.show('players', 'Players');
    const { page } = panel;
    await tabTo(page, page.getByLabel('Search by'));
    await page.keyboard.press('ArrowDown'); // Name → Platform id
    await expect(page.getByLabel('Search by').inputValue()).resolves.toBe('platform_id');
    await page.keyboard.press('Tab');
    await page.keyboard.type(player.platform_id);
    await page.evaluate(WATCH_LIST);
    await page.keyboard.press('Enter');
    const open = page.getByRole('button', { name: `Open ${player.char_name}` });
    await open.waitFor();
    // Until the game answers, the list says so: never the last listing's rows under the new title.
    const title = `Players matching “${player.platform_id}”`;
    const seen = (await page.evaluate('window.listSeen')) as string[];
    expect([...new Set(seen)].filter((state) => state.startsWith(title))).toEqual([
      `${title} | Loading…`,
      `${title} | ${player.char_name}`,
    ]);
    await tabTo(page, open);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: player.char_name }).waitFor();

    await tabTo(page, page.getByLabel('Ban length'));
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('90');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Home'); // the first unit: minutes
    await page.keyboard.press('Tab'); // Permanent ban, left unticked
    await page.keyboard.press('Tab');
    await page.keyboard.type('griefing');
    await page.getByTestId('ban-preview').getByText('90 minutes, kept exactly.').waitFor();
    const ban = `Ban ${player.char_name}`;
    await tabTo(page, page.getByRole('button', { name: ban }));
    // Escape closes the dialog without acting, and the focus is back on the button.
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `${ban} for 90 minutes?` });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await expect(hasFocus(page.getByRole('button', { name: ban }))).resolves.toBe(true);
    await page.keyboard.press('Space');
    await dialog.waitFor();
    await page.keyboard.press('Tab'); // Cancel has the focus; the dialog's Ban is next
    await page.keyboard.press('Space');
    await page
      .getByTestId('game-answer')
      .getByText(/The game answered: Banned until .*: griefing/)
      .waitFor();

    const unban = page.getByRole('button', { name: `Unban ${player.char_name}` });
    await tabTo(page, unban);
    await page.keyboard.press('Enter');
    await page.getByTestId('game-answer').getByText('The game answered: Not banned.').waitFor();
    // Unban goes with the ban: the focus is on the game's answer, not back at the top of the page.
    await unban.waitFor({ state: 'detached' });
    await expect(hasFocus(page.getByTestId('game-answer'))).resolves.toBe(true);
  });

  it('has no axe violation and no sideways scroll in any look, and each row’s Open shows at every width', async () => {
    // Each row's Open shows without scrolling the table's box, at a phone's width too.
    const panel = await shared.show('players', 'Players');
    const { page } = panel;
    const open = page.getByRole('button', { name: /^Open / }).first();
    for (const { viewport } of LOOKS) {
      await page.setViewportSize(viewport);
      const box = await open.boundingBox();
      expect(box!.x + box!.width, `${viewport.width} px`).toBeLessThanOrEqual(viewport.width);
    }
    await page.setViewportSize(DESKTOP);
    await openPlayer(panel, players[3] as Row);
    const widest: LookCheck = async (checked, look) => {
      const right = await widestInMain(checked);
      return right > look.viewport.width ? [`main reaches ${right} px`] : [];
    };
    expect(await problemsInEveryLook(page, 'a player', widest)).toEqual([]);
  });
});
