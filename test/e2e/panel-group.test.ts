/**
 * The panel's Group page in a real Chromium against real `serve` and `sim` processes
 * (docs/panel.md, "Group"): a daemon in no group says so and where setting one up is explained;
 * axe-core and sideways scroll on a phone and a laptop, light and dark.
 *
 * Skipped without Chromium unless MODGATE_REQUIRE_CHROMIUM=1, as test/e2e/panel.test.ts.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumForTests } from '../../harness/browser.ts';
import { axeViolations, DESKTOP, openPanel, PHONE, sideScroll } from '../../harness/panel-browser.ts';
import { startPanelStack, type PanelStack } from '../../harness/panel-stack.ts';

const chromium = chromiumForTests('test/e2e/panel-group.test.ts');

describe.runIf(chromium.run)("the panel's Group page on a daemon in no group", () => {
  let stack: PanelStack;
  let browser: Browser;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startPanelStack(), chromium.launch()]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  for (const viewport of [DESKTOP, PHONE]) {
    for (const colorScheme of ['light', 'dark'] as const) {
      it(`says the daemon is in no group, with no axe violation and no sideways scroll at ${viewport.width} px, ${colorScheme}`, async () => {
        const panel = await openPanel(browser, stack, { viewport, colorScheme });
        const { page } = panel;
        await panel.go('group', 'Group');
        const explanation = page.getByTestId('not-in-group');
        await explanation.getByRole('heading', { name: 'This daemon is in no group' }).waitFor();
        expect(await explanation.textContent()).toContain('modgate docs group');
        expect(await page.getByRole('table').count()).toBe(0);
        expect(await axeViolations(page)).toEqual([]);
        expect(await sideScroll(page)).toBe(0);
        await panel.close();
      });
    }
  }
});
