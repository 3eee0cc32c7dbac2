/**
 * The panel's Group page in a real Chromium against real `serve` and `sim` processes
 * (docs/panel.md, "Group"): a daemon with `[group]` in its config file, on a real PostgreSQL
 * (harness/postgres.ts), shows its server and a ban made through the admin API, keeps its
 * filters in the address, and Lift, after confirming (by keyboard alone), publishes the unban,
 * after which the lifted ban offers no Lift but says what lifted it; axe-core and sideways scroll
 * on a phone and a laptop, light and dark, with rows and with the dialog open; "Refused here"
 * says its game refused nothing, then shows a mute from the group its game refused, in every
 * look. A daemon in no
 * group is test/e2e/panel-shell.test.ts's: its walk checks that state of the page in every look.
 *
 * Skipped without Chromium unless MODGATE_REQUIRE_CHROMIUM=1, as test/e2e/panel.test.ts, and
 * without PostgreSQL unless MODGATE_REQUIRE_POSTGRES=1.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRequest } from '../../harness/admin.ts';
import { chromiumForTests } from '../../harness/browser.ts';
import {
  problemsInEveryLook,
  sharedPanel,
  type PanelPage,
  type SharedPanel,
} from '../../harness/panel-browser.ts';
import { startPanelStack, type PanelStack } from '../../harness/panel-stack.ts';
import { postgresAvailable, startPostgres, type PostgresCluster } from '../../harness/postgres.ts';
import { eventually } from '../../harness/stack.ts';
import { publishElsewhere } from '../support/group-rows.ts';

const chromium = chromiumForTests('test/e2e/panel-group.test.ts');
const postgres = postgresAvailable('test/e2e/panel-group.test.ts');

describe.runIf(chromium.run && postgres.run)("the panel's Group page on a daemon in a group", () => {
  let cluster: PostgresCluster;
  let configDir: string;
  let stack: PanelStack;
  let browser: Browser;
  /** Every test's page: none here ends its session or signs in with another token. */
  let shared: SharedPanel;
  const player = '76561199000035001';

  beforeAll(async () => {
    configDir = await mkdtemp(join(tmpdir(), 'modgate-panel-group-'));
    const config = join(configDir, 'modgate.toml');
    // The stack's data dir and token are made while PostgreSQL starts; serve waits for its config.
    const configured = (async () => {
      cluster = await startPostgres(postgres.binDir);
      const url = await cluster.createDatabase('panel_group');
      await writeFile(config, `[group]\ndatabase_url = "${url}"\nname = "Alpha"\n`);
      return ['--config', config];
    })();
    // No game events: the simulator's own bans and unbans, 600 a minute, push this file's ban off
    // the list's first page within a minute on a loaded machine.
    // The game refuses the first mute it is sent: the one the last test publishes "from another
    // server" (no test before it mutes anyone).
    [stack, browser] = await Promise.all([
      startPanelStack({
        eventsRate: 0,
        serveExtra: configured,
        simExtra: ['--fault', 'players.mute=error:invalid:this game mutes no one,times:1'],
      }),
      chromium.launch(),
    ]);
    shared = sharedPanel(browser, stack);
    const banned = await adminRequest({
      url: stack.adminUrl,
      token: stack.token,
      method: 'POST',
      path: `/admin/v1/game/players/${player}/ban`,
      body: { duration: 24, duration_unit: 'hours', reason: 'aimbot' },
    });
    expect(banned.status, banned.text).toBe(200);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await cluster?.cleanup();
    if (configDir) await rm(configDir, { recursive: true, force: true });
  });

  function groupPage(): Promise<PanelPage> {
    return shared.show('group', 'Group');
  }

  /** The ban's row, once the daemon has published it to the group's log. */
  async function banRow(panel: PanelPage) {
    const row = panel.page
      .locator(`[data-testid=group-sanction][data-action=ban]`)
      .filter({ hasText: player });
    await eventually(async () => {
      await panel.page.getByRole('button', { name: 'Filter' }).click();
      return (await row.count()) === 1;
    });
    return row;
  }

  it('shows its server up with its link, and the ban with its origin and where each server stands', async () => {
    const panel = await groupPage();
    const server = panel.page.getByTestId('group-server').filter({ hasText: 'Alpha' });
    await server.waitFor();
    expect((await server.locator('td').allTextContents()).slice(1, 3)).toEqual(['Up', 'Up']);
    const row = await banRow(panel);
    const text = await row.textContent();
    expect(text).toContain('Alpha, by');
    expect(text).toContain('aimbot');
    expect(text).toContain('Alpha: origin');
  });

  it('keeps its filters in the address across a reload, and says when none match', async () => {
    const panel = await groupPage();
    const { page } = panel;
    await banRow(panel);
    await page.getByLabel('Kind').selectOption('mutes');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No sanctions of the group match these filters.').waitFor();
    expect(new URL(page.url()).hash).toBe('#/group?kind=mutes');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Group' }).waitFor();
    await page.getByText('No sanctions of the group match these filters.').waitFor();
    expect(await page.getByLabel('Kind').inputValue()).toBe('mutes');
  });

  it('has no axe violation and no sideways scroll in any look, with rows and with the Lift dialog open', async () => {
    const panel = await groupPage();
    const { page } = panel;
    await banRow(panel);
    const problems = await problemsInEveryLook(page, 'the sanctions');
    await page.getByRole('button', { name: `Lift the ban of ${player}` }).click();
    await page.getByRole('dialog').waitFor();
    problems.push(...(await problemsInEveryLook(page, 'the Lift dialog')));
    await page.keyboard.press('Escape');
    expect(problems).toEqual([]);
  });

  it('lifts the ban only after confirming, publishing the unban to every server of the group', async () => {
    const panel = await groupPage();
    const { page } = panel;
    await banRow(panel);
    const lift = page.getByRole('button', { name: `Lift the ban of ${player}` });
    await lift.click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain(
      'publishes an unban of ' + player + ' to every server of the group',
    );
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByTestId('lift-answer').textContent()).toBe('');
    // By keyboard alone: Enter opens the dialog, whose focus starts on Cancel; Tab, Enter lifts.
    await lift.focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page
      .getByTestId('lift-answer')
      .filter({ hasText: `Published an unban of ${player}` })
      .waitFor();
    const unban = page.locator('[data-testid=group-sanction][data-action=unban]').filter({ hasText: player });
    await unban.waitFor();
    // The lifted ban offers no second Lift (the daemon would refuse it, 409): it says what lifted it.
    const unbanId = await unban.getAttribute('data-sanction-id');
    const ban = page.locator('[data-testid=group-sanction][data-action=ban]').filter({ hasText: player });
    await ban
      .getByTestId('not-in-force')
      .filter({ hasText: `Lifted (sanction ${unbanId})` })
      .waitFor();
    expect(await ban.getByRole('button').count()).toBe(0);
    // The answer takes the focus, not the top of the page.
    await eventually(
      async () => (await page.evaluate('document.activeElement?.dataset.testid')) === 'lift-answer',
    );
    const moderation = await adminRequest({
      url: stack.adminUrl,
      token: stack.token,
      path: `/admin/v1/game/players/${player}/moderation`,
    });
    expect(moderation.json).toMatchObject({ ban: { banned: false } });
  });

  // Last: its mute would be listed by the filters test's "kind=mutes" if it ran earlier.
  it('says under Refused here that its game refused nothing, then shows a mute from the group it refused, in every look', async () => {
    const panel = await groupPage();
    const { page } = panel;
    const refused = page.getByRole('region', { name: 'Refused here' });
    await refused.getByText("This server's game has refused no sanction from the group.").waitFor();
    const muted = '76561199000035002';
    // A mute published by a server of the group not running here, announced as any is.
    await publishElsewhere(cluster, 'panel_group', { action: 'mute', platform_id: muted, reason: 'spam' });
    await eventually(async () => {
      const answer = await adminRequest({
        url: stack.adminUrl,
        token: stack.token,
        path: '/admin/v1/group/failures',
      });
      return (answer.json as { total?: number }).total === 1;
    });
    await page.reload();
    const row = refused.getByTestId('group-refused');
    await row.waitFor();
    expect(await row.locator('td').allTextContents()).toEqual([
      expect.any(String),
      expect.stringMatching(/^mute \(sanction \d+\)$/),
      muted,
      'srv_elsewhere',
      expect.stringContaining('this game mutes no one'),
    ]);
    expect(await problemsInEveryLook(page, 'Refused here')).toEqual([]);
  });
});
