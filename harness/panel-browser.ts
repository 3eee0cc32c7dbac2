/**
 * What every browser test of the panel checks the same way: a signed-in page at a given size and
 * colour scheme, axe-core's verdict on what it shows (every rule, colour contrast included), and
 * whether the page scrolls sideways. The tests drive a real Chromium against `startPanelStack`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
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

/**
 * One signed-in page that a file's tests share, opened at the first `show` and kept: a test that
 * needs no session of its own (it ends, revokes or switches none, and signs in with no other
 * token) takes it instead of opening its own, sparing a context, a page, a document, a sign-in
 * and axe's first run in that document (seconds each under the suite's load).
 */
export interface SharedPanel {
  /**
   * The shared page showing `#/path` afresh, as `openPanel` then `go` would show it: in the
   * options' look (the desktop, light, unless told), no route left by an earlier test, scrolled
   * to the top, the page mounted anew, the focus on its heading. Called at the start of each test,
   * so a test that failed half-way (a dialog open, a route holding a request, a look switched)
   * leaves nothing to the next; a page signed out or closed is replaced by a fresh one.
   */
  show(path: string, heading: string): Promise<PanelPage>;
}

/**
 * A `SharedPanel` on `browser` and `stack`, signed in as `openPanel` signs in with `options`;
 * closed with the browser.
 */
export function sharedPanel(
  browser: Browser,
  stack: PanelStack,
  options: PanelPageOptions = {},
): SharedPanel {
  let panel: PanelPage | undefined;
  const signedIn = async (open: PanelPage) =>
    !open.page.isClosed() && (await open.page.getByRole('button', { name: 'Sign out' }).isVisible());
  return {
    show: async (path, heading) => {
      // Once in a full run on a loaded machine, Chromium stopped drawing the shared page (every
      // later click waited for a frame until its timeout): a page that draws no frame is replaced.
      if (panel === undefined || !(await signedIn(panel)) || !(await drawsFrame(panel.page, 10_000))) {
        await panel?.close().catch(() => undefined);
        panel = await openPanel(browser, stack, options);
      }
      const { page } = panel;
      await page.unrouteAll({ behavior: 'ignoreErrors' });
      await page.setViewportSize(options.viewport ?? DESKTOP);
      await page.emulateMedia({ colorScheme: options.colorScheme ?? 'light' });
      await page.evaluate('scrollTo(0, 0)');
      // The shell keys the page by its path, and going to the hash it shows already is no
      // change at all: through another page first, so this one mounts anew (panel/app.ts): the
      // Overview, which every role sees, or for the Overview itself the Keys page (an owner's).
      const away = path === 'overview' ? 'keys' : 'overview';
      await panel.go(away, away === 'keys' ? 'Keys' : 'Overview');
      await panel.go(path, heading);
      return panel;
    },
  };
}

/**
 * Whether `page` draws its next frame within `ms`: what a click waits for (Playwright's "stable"
 * check counts frames), bounded, where waiting on requestAnimationFrame alone would wait forever
 * on a page Chromium no longer draws.
 */
export async function drawsFrame(page: Page, ms: number): Promise<boolean> {
  return (await page.evaluate(
    `new Promise((resolve) => { requestAnimationFrame(() => resolve(true)); setTimeout(() => resolve(false), ${ms}); })`,
  )) as boolean;
}

/** Whether `target` has the focus in its page. */
export function hasFocus(target: Locator): Promise<boolean> {
  return target.evaluate((el) => el === el.ownerDocument.activeElement);
}

/**
 * Presses Tab until `target` has the focus, as a keyboard user gets there (no click), and fails
 * after `limit` presses: every control on the way is one a person tabs past.
 */
export async function tabTo(page: Page, target: Locator, limit = 60): Promise<void> {
  await target.waitFor();
  for (let presses = 0; !(await hasFocus(target)); presses++) {
    if (presses === limit)
      throw new Error(`${String(target)} never took the focus in ${limit} presses of Tab`);
    await page.keyboard.press('Tab');
  }
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
      if (!(await drawsFrame(page, 30_000)))
        throw new Error(`${what}, ${look.name}: the page drew no frame in 30 s`);
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
