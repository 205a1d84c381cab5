// The variant registry: well formed, and every variant starts and makes the choice it names (its
// probe holds on the server with the variant and fails on the default server). Whether a variant
// server still conforms is the conformance suite's question, not this file's.

import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { buildReferenceApp } from '../../../reference-server/app';
import { formatVariantTable } from '../../../reference-server/registry-tables';
import { Variants } from '../../../reference-server/switches';
import { isVariantName, variantMode, variantNames, VARIANTS } from '../../../reference-server/variants';
import { Harness, MONTH_START, NOW, SEED_IDS } from './helpers';
import { VARIANT_PROBES } from './variant-probes';

test.describe('variant registry', () => {
  test('distinct names, one-line descriptions, each citing the document that allows it', () => {
    expect(VARIANTS.length).toBeGreaterThanOrEqual(19);
    expect(new Set(VARIANTS.map((v) => v.name)).size).toBe(VARIANTS.length);
    expect(new Set(VARIANTS.map((v) => v.description)).size).toBe(VARIANTS.length);
    for (const v of VARIANTS) {
      expect(v.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(isVariantName(v.name)).toBe(true);
      for (const text of [v.description, v.allowedBy]) {
        expect(text, v.name).not.toContain('\n');
        expect(text.length, v.name).toBeGreaterThan(10);
      }
      expect(v.allowedBy, v.name).toMatch(/(v3-profile|vehicle-data-service-v3)\.md § /);
    }
    expect(variantNames()).toEqual(VARIANTS.map((v) => v.name));
    expect(isVariantName('no-such-variant')).toBe(false);
  });

  test('docs/reference-server.md lists every variant with what it changes', () => {
    const guide = fs.readFileSync(path.resolve(__dirname, '../../../docs/reference-server.md'), 'utf8');
    for (const v of VARIANTS) expect(guide, v.name).toContain(`| \`${v.name}\` | ${v.description} |`);
  });

  test('every variant has exactly one probe, run in the mode the registry gives', () => {
    expect(Object.keys(VARIANT_PROBES).sort()).toEqual(VARIANTS.map((v) => v.name).sort());
    for (const v of VARIANTS) expect(VARIANT_PROBES[v.name].mode ?? 'cloud', v.name).toBe(variantMode(v.name));
  });

  test('the table has a header and one line per variant', () => {
    const lines = formatVariantTable().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+DESCRIPTION\s+\[allowed by: /);
    expect(lines).toHaveLength(VARIANTS.length + 1);
    for (const v of VARIANTS) expect(lines.some((l) => l.startsWith(`${v.name} `) && l.includes(v.allowedBy))).toBe(true);
  });

  test('an unknown variant is refused when building the app; none and empty mean the default', async () => {
    await expect(buildReferenceApp({ mode: 'cloud', variant: 'no-such-variant' })).rejects.toThrow(/Unknown variant 'no-such-variant' \(valid: quiet-month, /);
    for (const none of ['none', '', undefined]) expect(new Variants(none).active.size).toBe(0);
    expect(new Variants('newest-first').has('newest-first')).toBe(true);
    expect(() => new Variants('newest-first,no-such-variant')).toThrow(/Unknown variant 'no-such-variant'/);
  });

  test('variants combine (a,b): each makes its choice, limit=0 read as "no limit" still answers every item under a default page size', async () => {
    const combined = new Variants('newest-first, extra-fields');
    expect(combined.has('newest-first') && combined.has('extra-fields') && !combined.has('quiet-month')).toBe(true);
    const h = await Harness.start({ variant: 'default-page-size,limit-zero-means-all' });
    try {
      const token = await h.alice();
      const page = (await h.get(`/v3/cars/${SEED_IDS.aliceRichCar}/signals`, token)).json as unknown[];
      const all = (await h.get(`/v3/cars/${SEED_IDS.aliceRichCar}/signals?limit=100000`, token)).json as unknown[];
      const zero = (await h.get(`/v3/cars/${SEED_IDS.aliceRichCar}/signals?limit=0`, token)).json as unknown[];
      expect(page).toHaveLength(25);
      expect(all.length).toBeGreaterThan(25);
      expect(zero).toEqual(all);
    } finally {
      await h.close();
    }
  });

  test('a fault and a variant can run together', async () => {
    const h = await Harness.start({ fault: 'car-date-zulu', variant: 'extra-fields' });
    try {
      const car = (await h.get(`/v3/cars/${SEED_IDS.aliceRichCar}`, await h.alice())).json;
      expect(car.creationDate).toMatch(/Z$/);
      expect(car.vendorExtension).toMatchObject({ source: 'reference' });
    } finally {
      await h.close();
    }
  });
});

test.describe('each variant makes the choice it names', () => {
  for (const v of VARIANTS) {
    const probe = VARIANT_PROBES[v.name];
    test(`variant ${v.name}`, async () => {
      const h = await Harness.start({ mode: probe.mode ?? 'cloud', variant: v.name });
      try {
        // The variant server starts, serves its sign-in page and answers the connected user.
        const asked = await h.get('/v3/auth/auth?client_id=vds-conformance');
        // Or sends the browser on to it (variants signin-page-redirected, and the flows of deployed servers, their cookie along).
        const next = asked.status === 302 || asked.status === 303 ? new URL(String(asked.headers.location), 'http://reference.test/v3/auth/auth') : undefined;
        const cookie = String(asked.headers['set-cookie'] ?? '').split(';')[0];
        const page = next ? await h.get(next.pathname + next.search, undefined, cookie ? { cookie } : {}) : asked;
        expect(page.status).toBe(200);
        // Its form, or the script that renders it (a single-page sign-in).
        expect(page.text).toMatch(/<form\b[^>]*\bmethod="post"|<script>/i);
        expect((await h.get('/v3/users/me', await h.alice())).status).toBe(200);
        expect(await probe.check(h)).toBe(true);
      } finally {
        await h.close();
      }
    });
  }
});

test.describe('the default server makes the other choice', () => {
  for (const v of VARIANTS) {
    const probe = VARIANT_PROBES[v.name];
    test(`default, not ${v.name}`, async () => {
      const h = await Harness.start({ mode: probe.mode ?? 'cloud' });
      try {
        expect(await probe.check(h)).toBe(false);
      } finally {
        await h.close();
      }
    });
  }
});

test.describe('variant details', () => {
  test('quiet-month: every history ends 2 h or more before the month start; ids and lengths as usual', async () => {
    const quiet = await Harness.start({ variant: 'quiet-month' });
    const usual = await Harness.start();
    try {
      for (const carId of [SEED_IDS.aliceRichCar, SEED_IDS.aliceSecondCar, SEED_IDS.bobCar]) {
        const trips = quiet.seed.histories.get(carId)!.trips;
        expect(trips.length).toBeGreaterThan(5);
        expect(trips[trips.length - 1].endDate).toBeLessThanOrEqual(MONTH_START - 2 * 3600 * 1000);
        // The most recent trip keeps its id: ids never depend on dates.
        expect(trips[trips.length - 1].id).toBe(usual.latestTrip(carId));
      }
      // Status still shows the latest data (from last month).
      const status = (await quiet.get(`/v3/cars/${SEED_IDS.aliceRichCar}/status`, await quiet.alice())).json;
      expect(Date.parse(status.location.date)).toBeLessThan(MONTH_START);
    } finally {
      await quiet.close();
      await usual.close();
    }
  });

  test('stats-no-data-404: a range with trips still answers its sum', async () => {
    const h = await Harness.start({ variant: 'stats-no-data-404' });
    try {
      const res = await h.get(`/v3/cars/${SEED_IDS.aliceRichCar}/stats/usedtime`, await h.alice());
      expect(res.status).toBe(200);
      expect(res.json.value).toBeGreaterThan(0);
    } finally {
      await h.close();
    }
  });

  test('dissociate-cars-only: a device on a car is still dissociated', async () => {
    const h = await Harness.start({ variant: 'dissociate-cars-only' });
    try {
      expect((await h.post('/v3/devices/VDSREF0002/dissociate', { token: await h.alice() })).status).toBe(204);
    } finally {
      await h.close();
    }
  });

  test('errors-text-plain and tips-reworded reach the errors of the router too (404 route, bad URL)', async () => {
    for (const variant of ['errors-text-plain', 'tips-reworded', 'error-array-two-elements']) {
      const h = await Harness.start({ variant });
      try {
        for (const url of ['/v3/nothing', '/v3/cars/%E0%A4%A']) {
          const res = await h.get(url);
          expect(res.status, `${variant} ${url}`).toBeGreaterThanOrEqual(400);
          const body = JSON.parse(res.text) as any[];
          if (variant === 'errors-text-plain') expect(res.contentType).toBe('text/plain; charset=utf-8');
          if (variant === 'tips-reworded') expect(body[0].tip).toMatch(/^Please check that /);
          if (variant === 'error-array-two-elements') expect(body).toHaveLength(2);
        }
      } finally {
        await h.close();
      }
    }
  });

  test('signin-form-unlabelled: the form posts login, not username; a filled field for bots is refused', async () => {
    const h = await Harness.start({ variant: 'signin-form-unlabelled' });
    try {
      const base = { password: 'alice-password', client_id: 'vds-conformance' };
      expect((await h.post('/v3/auth/auth', { form: { ...base, login: 'alice@reference.test' } })).status).toBe(302);
      expect((await h.post('/v3/auth/auth', { form: { ...base, username: 'alice@reference.test' } })).status).toBe(401);
      const bot = await h.post('/v3/auth/auth', { form: { ...base, login: 'alice@reference.test', website: 'http://spam.example' } });
      expect(bot.status).toBe(401);
      expect(bot.text).toContain('<input name="login" type="text" placeholder="Email or username" value="alice@reference.test">');
    } finally {
      await h.close();
    }
  });

  test('token-clock-skew: the token itself still expires after expires_in', async () => {
    const h = await Harness.start({ variant: 'token-clock-skew' });
    try {
      const token = (await h.tokenResponse()).access_token;
      h.clock.now = NOW + 3600 * 1000;
      expect((await h.get('/v3/users/me', token)).status).toBe(403);
    } finally {
      await h.close();
    }
  });
});
