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
  // page is checked under its real policy. Once per document: a page checked in four looks
  // would otherwise parse axe's half a megabyte four times.
  if ((await page.evaluate('typeof axe')) === 'undefined') await page.evaluate(axeSource);
  // Every rule still runs: resultTypes only spares axe building a selector for every passing
  // and inapplicable node, which nothing here reads (the resultTypes option of axe.run in
  // axe-core's API documentation).
  // A string, not a function: this tree is typed for Node, without the DOM's names.
  const violations = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations)",
  )) as {
    id: string;
    help: string;
    nodes: { target: string[] }[];
  }[];
  return violations.map(
    (violation) =>
      `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
  );
}

/** A size and colour scheme the panel is held to: each size in each scheme. */
export interface Look {
  name: string;
  viewport: { width: number; height: number };
  colorScheme: 'light' | 'dark';
}

export const LOOKS: readonly Look[] = [
  { name: '1280 px, light', viewport: DESKTOP, colorScheme: 'light' },
  { name: '1280 px, dark', viewport: DESKTOP, colorScheme: 'dark' },
  { name: '390 px, light', viewport: PHONE, colorScheme: 'light' },
  { name: '390 px, dark', viewport: PHONE, colorScheme: 'dark' },
];

/** A check of its own a file adds to every look: what it finds wrong, as lines (none when all pass). */
export type LookCheck = (page: Page, look: Look) => Promise<string[]>;

/**
 * What is wrong with the page as it shows now, in every look: axe-core's violations (every
 * rule), the sideways scroll, and what `more` finds, as `what, look: problem` lines (none when
 * all pass). The same page is resized and its scheme switched rather than a fresh one opened per
 * look: the panel's layout and colours are CSS media queries alone (no script reads the width or
 * the scheme), so the page shows in each look what a page opened in it shows, and a state built
 * once (rows loaded, a form filled, a dialog open) is checked four times without being built
 * four times. The page is left in the look it had.
 */
export async function problemsInEveryLook(page: Page, what: string, more?: LookCheck): Promise<string[]> {
  const viewport = page.viewportSize();
  const scheme = (await page.evaluate('matchMedia("(prefers-color-scheme: dark)").matches'))
    ? 'dark'
    : 'light';
  const problems: string[] = [];
  try {
    for (const look of LOOKS) {
      await page.setViewportSize(look.viewport);
      await page.emulateMedia({ colorScheme: look.colorScheme });
      // The next frame is laid out in the new look before anything is measured.
      await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve()))');
      const found = await axeViolations(page);
      const scroll = await sideScroll(page);
      if (scroll > 0) found.push(`scrolls sideways by ${scroll} px`);
      if (more) found.push(...(await more(page, look)));
      problems.push(...found.map((problem) => `${what}, ${look.name}: ${problem}`));
    }
  } finally {
    if (viewport) await page.setViewportSize(viewport);
    await page.emulateMedia({ colorScheme: scheme });
  }
  return problems;
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

/** `mainOverflow` as a check of every look: a line when `main` overflows sideways. */
export const mainOverflowing: LookCheck = async (page) => {
  const overflow = await mainOverflow(page);
  return overflow > 0 ? [`main overflows by ${overflow} px`] : [];
};
