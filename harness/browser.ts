/**
 * A real Chromium for the panel's browser tests and screenshots, driven by playwright-core
 * (which downloads nothing: it drives the Chromium it is pointed at). Found at `CHROMIUM_PATH`,
 * else Debian's `/usr/bin/chromium` (`apt-get install chromium`), else the other usual names.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { installed } from './processes.ts';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The Chromium to drive, or undefined when this machine has none. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env['CHROMIUM_PATH'];
  if (named !== undefined && named !== '') return existsSync(named) ? named : undefined;
  return installed(
    CANDIDATES.filter((path) => existsSync(path)),
    ['--version'],
  );
}

/** Headless Chromium at `executablePath`. */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    // Chromium refuses to start its sandbox as root (CI containers run as root): there it runs
    // without one. The pages it opens are our own panel on loopback, nothing from the web.
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}
