/**
 * What every browser test of the panel checks the same way: a signed-in page at a given size and
 * colour scheme, axe-core's verdict on what it shows (every rule, colour contrast included), and
 * whether the page scrolls sideways. The tests drive a real Chromium against `startPanelStack`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { PanelStack } from './panel-stack.ts';

/** The sizes the panel is held to: a laptop and a phone. */
export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;

export interface PanelPageOptions {
  viewport?: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
  /** The admin token to sign in with; the stack's owner token unless told. */
  token?: string;
}

export interface PanelPage {
  context: BrowserContext;
  page: Page;
  /** Shows `#/path` and waits for its heading. */
  go(path: string, heading: string): Promise<void>;
  close(): Promise<void>;
}

/** A fresh browser context signed in to the stack's panel with a token. */
export async function openPanel(
  browser: Browser,
  stack: PanelStack,
  options: PanelPageOptions = {},
): Promise<PanelPage> {
  const context = await browser.newContext({
    viewport: options.viewport ?? DESKTOP,
    colorScheme: options.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  await page.goto(`${stack.adminUrl}/`);
  await page.getByLabel('Admin token').fill(options.token ?? stack.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Overview' }).waitFor();
  return {
    context,
    page,
    go: async (path, heading) => {
      await page.evaluate(`location.hash = ${JSON.stringify(`#/${path}`)}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    },
    close: () => context.close(),
  };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's violations on the page as it shows now, every rule run (contrast included), as
 * `id: help (targets)` lines so a failing test says what and where.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the driver, which the panel's CSP (script-src 'self') does not stop: the
  // page is checked under its real policy.
  await page.evaluate(axeSource);
  // A string, not a function: this tree is typed for Node, without the DOM's names.
  const violations = (await page.evaluate('axe.run(document).then((result) => result.violations)')) as {
    id: string;
    help: string;
    nodes: { target: string[] }[];
  }[];
  return violations.map(
    (violation) =>
      `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
  );
}

/** How many pixels the page scrolls sideways (0 when it fits). */
export function sideScroll(page: Page): Promise<number> {
  return page.evaluate(
    'document.documentElement.scrollWidth - document.documentElement.clientWidth',
  ) as Promise<number>;
}

/** How far `main`'s content overflows `main` sideways (0 when it fits; tables scroll in their own box). */
export function mainOverflow(page: Page): Promise<number> {
  return page.evaluate(
    '(() => { const main = document.querySelector("main"); return main.scrollWidth - main.clientWidth; })()',
  ) as Promise<number>;
}
