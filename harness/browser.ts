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

export interface TestChromium {
  /** Whether the file's browser tests run: a Chromium was found, or one is required. */
  run: boolean;
  /** Launches it; fails, naming the variable, when MODGATE_REQUIRE_CHROMIUM=1 found none. */
  launch(): Promise<Browser>;
}

/**
 * The Chromium a browser test file runs with. Without one the file says so on stderr and its tests
 * skip; .ci/run sets MODGATE_REQUIRE_CHROMIUM=1, and then a missing Chromium fails instead.
 */
export function chromiumForTests(file: string, env: NodeJS.ProcessEnv = process.env): TestChromium {
  const path = findChromium(env);
  const required = env['MODGATE_REQUIRE_CHROMIUM'] === '1';
  if (path === undefined && !required) {
    process.stderr.write(
      `\n${file}: SKIPPED, no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)\n\n`,
    );
  }
  return {
    run: path !== undefined || required,
    launch: () =>
      path === undefined
        ? Promise.reject(new Error('MODGATE_REQUIRE_CHROMIUM=1 but no Chromium was found'))
        : launchChromium(path),
  };
}
