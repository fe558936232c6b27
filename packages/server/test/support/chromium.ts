/**
 * Headless Debian Chromium (apt-get install -y chromium), driven by playwright-core, for the tests
 * that look at the login and docs pages as a person does (`*-browser.test.ts`): where it is, one
 * launch with one set of flags, a profile directory of its own per test file, and the application's
 * redirect URI that such a sign-in lands on. Where Chromium is not installed those tests skip loudly;
 * CI installs it. (support/browser.ts is the HTTP stand-in for a browser, no Chromium.)
 */

import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** No sandbox (containers), no GPU, nothing fetched in the background: only what the page asks for. */
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Whether Chromium is installed; where not, says loudly that `what` is skipped and how to install it. */
export function chromiumAvailable(what: string): boolean {
  const available = existsSync(CHROMIUM);
  if (!available) {
    console.warn(`\n*** SKIPPING the Chromium ${what}: no browser at ${CHROMIUM}. Install it with: apt-get update && apt-get install -y chromium ***\n`);
  }
  return available;
}

/** A Chromium whose every `newContext()` is a fresh profile (no cookies, no session). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

export interface ChromiumProfile {
  /** Chromium on this profile (cookies kept between launches); close the context when done. */
  launch(): Promise<BrowserContext>;
  /** Removes the profile's directory (after its contexts are closed). */
  remove(): void;
}

/** A profile directory of its own under the system's temporary folder, named `<prefix>…`. */
export function chromiumProfile(prefix: string): ChromiumProfile {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    launch: () => chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, headless: true, args: FLAGS }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface RedirectTarget {
  /** `http://127.0.0.1:<port><path>`, to register as the application's redirect URI. */
  uri: string;
  close(): Promise<void>;
}

/** The application's redirect URI: a page on loopback that answers "signed in" to anything. */
export async function startRedirectTarget(path: string): Promise<RedirectTarget> {
  const server = createServer((_req, res) => res.end('signed in'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Where screenshots go: the test output, kept after the run (outside the run's temporary root, global-temp-root.ts). */
const OUTPUT = process.env.TEST_OUTPUT_DIR ?? join(tmpdir(), 'identity-service-test-output');

/** The whole page as a PNG in the test output, `<name>-<time>.png`; its path is printed, named as `what`. */
export async function screenshot(page: Page, name: string, what: string): Promise<void> {
  mkdirSync(OUTPUT, { recursive: true });
  const shot = join(OUTPUT, `${name}-${Date.now()}.png`);
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`${what} screenshot: ${shot}`);
}
