import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTestApp } from '../support/harness';
import { testDatabaseUrl } from '../support/services';

const CHROMIUM = '/usr/bin/chromium';
/** As the widget's browser test: skipped without Chromium, never on CI (which installs it). */
const runBrowser = existsSync(CHROMIUM) || Boolean(testDatabaseUrl());

describe.skipIf(!runBrowser)('the docs page in a browser', () => {
  const app = withTestApp();
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('opens with the API-key scheme selected and says where the key goes', async () => {
    const page = await browser.newPage();
    await page.goto(`${app.url}/api/v1/docs`);
    await page.getByText('Trying requests on this page').first().waitFor({ timeout: 30_000 });
    const text = await page.locator('body').innerText();
    expect(text).toContain('into the Value field under Authentication');
    expect(text).not.toContain('No authentication selected');
    expect(text).toMatch(/X-Api-Key/);
    await page.close();
  });
});
