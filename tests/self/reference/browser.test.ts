// The sign-in page in a real headless Chromium: labels, form submission, redirect with code and state.
// Skipped (with the reason) when no Chromium is available.

import { chromium, expect, test } from '@playwright/test';
import { existsSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildReferenceApp } from '../../../reference-server/app';
import { basic, REDIRECT_URI, USERS } from './helpers';

function chromiumPath(): string | undefined {
  const override = process.env.VDS_CHROMIUM;
  if (override && existsSync(override)) return override;
  try {
    if (existsSync(chromium.executablePath())) return chromium.executablePath();
  } catch {
    // Playwright's own browser is not installed.
  }
  return ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((p) => existsSync(p));
}

const executablePath = chromiumPath();

test.describe('sign-in page in Chromium', () => {
  test.skip(!executablePath, 'no Chromium: set VDS_CHROMIUM or install chromium');

  let app: FastifyInstance;
  let base: string;
  test.beforeAll(async () => {
    app = await buildReferenceApp({ mode: 'cloud' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  test.afterAll(async () => app.close());

  test('a user signs in; the browser is sent to the redirect URI with code and state', async () => {
    const browser = await chromium.launch({ executablePath, args: ['--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost'] });
    try {
      const page = await browser.newPage();
      await page.goto(
        `${base}/v3/auth/auth?client_id=vds-conformance&scope=users_read%20cars_read&state=abc%20123&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`,
      );
      await expect(page).toHaveTitle(/Sign in/);

      await page.getByLabel('Email').fill(USERS.alice.email);
      await page.getByLabel('Password').fill('wrong-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('alert')).toHaveText('Wrong email or password');

      await page.getByLabel('Password').fill(USERS.alice.password);
      const [redirect] = await Promise.all([
        page.waitForRequest((r) => r.url().startsWith(REDIRECT_URI) && r.isNavigationRequest()),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      const url = new URL(redirect.url());
      expect(url.searchParams.get('state')).toBe('abc 123');
      const code = url.searchParams.get('code')!;
      const token = await fetch(`${base}/v3/auth/access_token`, {
        method: 'POST',
        headers: { authorization: basic('full'), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code }).toString(),
      });
      expect(token.status).toBe(200);
      const { access_token } = await token.json();
      const me = await fetch(`${base}/v3/users/me`, { headers: { authorization: `Bearer ${access_token}` } });
      expect((await me.json()).email).toBeUndefined();
    } finally {
      await browser.close();
    }
  });
});
