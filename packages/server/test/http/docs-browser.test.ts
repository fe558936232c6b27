/**
 * /docs as a person sees it: headless Debian Chromium loads the page, which fetches
 * /openapi.json from this process (no CDN) and renders every operation.
 * Skips loudly where Chromium is not installed; CI installs it.
 */
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/http/spec.js';
import { type ChromiumProfile, chromiumAvailable, chromiumProfile } from '../support/chromium.js';
import { createTestInstance, type TestInstance } from '../support/instance.js';

const available = chromiumAvailable('/docs test');

describe.skipIf(!available)('/docs in headless Chromium', () => {
  let t: TestInstance;
  let server: ServerType;
  let base: string;
  let profile: ChromiumProfile;

  beforeAll(async () => {
    t = await createTestInstance('sqlite');
    await new Promise<void>((resolve) => {
      server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
        base = `http://127.0.0.1:${info.port}`;
        resolve();
      });
    });
    profile = chromiumProfile('chromium-docs-');
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await t?.close();
    profile?.remove();
  });

  const launch = () => profile.launch();

  it('renders one entry per operation of the spec, with no failed requests', async () => {
    const context = await launch();
    try {
      const page = await context.newPage();
      const failed: string[] = [];
      page.on('requestfailed', (req) => failed.push(req.url()));
      page.on('response', (res) => {
        if (res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
      });
      await page.goto(`${base}/docs`);
      await page.waitForSelector('.opblock', { timeout: 20_000 });
      const spec = loadSpec() as { paths: Record<string, Record<string, unknown>> };
      const operations = Object.values(spec.paths).flatMap((item) => ['get', 'put', 'post', 'delete', 'patch'].filter((m) => item[m]));
      // From 150 tags + operations on, swagger-ui (5.3x) virtualises the list: only what is near the
      // viewport is in the DOM. Scroll through the page as a reader would and collect every entry seen.
      const seen = new Set<string>();
      const collect = async () => {
        for (const id of await page.locator('.opblock').evaluateAll((els) => els.map((e) => e.id))) seen.add(id);
      };
      for (let step = 0; step < 1000; step++) {
        await collect();
        const atEnd = await page.evaluate(() => {
          window.scrollBy(0, 400);
          return window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
        });
        await page.waitForTimeout(20);
        if (atEnd) break;
      }
      await collect();
      expect(seen.size).toBe(operations.length);
      expect([...seen].some((id) => id.endsWith('-SetDefaultVerifyEmailMessageText'))).toBe(true);
      expect(failed).toEqual([]);
    } finally {
      await context.close();
    }
  });

  // Issue 48.7: "Try it out" filled `offset` with a 30-digit number (swagger-ui's sample of the string
  // branch's pattern); the spec's example makes it "0".
  it('"Try it out" prefills a list request\'s paging with offset "0"', async () => {
    const context = await launch();
    try {
      for (const [tag, operationId, paging] of [
        ['Organizations', 'ListOrgs', (body: any) => body.query],
        ['Events', 'ListEvents', (body: any) => body],
      ] as const) {
        const page = await context.newPage();
        await page.goto(`${base}/docs#/${tag}/${operationId}`);
        const block = page.locator(`.opblock[id$="-${operationId}"]`);
        await block.locator('.try-out__btn').click({ timeout: 20_000 });
        const body = JSON.parse(await block.locator('textarea.body-param__text').inputValue());
        expect(paging(body).offset, operationId).toBe('0');
        await page.close();
      }
    } finally {
      await context.close();
    }
  }, 60_000);
});
