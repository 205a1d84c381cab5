import { expect, test } from '@playwright/test';
import { REDACTED, Redactor } from '../../../src/util/redact';

test('known secret values are removed wherever they appear, also URL-encoded', () => {
  const r = new Redactor(['s3cr3t/value+x']);
  expect(r.redact('a s3cr3t/value+x b')).toBe(`a ${REDACTED} b`);
  expect(r.redact(`q=${encodeURIComponent('s3cr3t/value+x')}`)).not.toContain('s3cr3t');
});

test('bearer and basic credentials are removed even when unknown', () => {
  const r = new Redactor();
  expect(r.redact('authorization: Bearer abcdef123456')).toBe(`authorization: Bearer ${REDACTED}`);
  expect(r.redact('Authorization: Basic dXNlcjpwYXNzd29yZA==')).toBe(`Authorization: Basic ${REDACTED}`);
});

test('secret-named JSON members and form fields are removed', () => {
  const r = new Redactor();
  const text = r.redact('{"access_token":"abc","refresh_token":"def","expires_in":3600} code=xyz123&state=ok password=hunter2');
  expect(text).not.toMatch(/abc|def|xyz123|hunter2/);
  expect(text).toContain('"expires_in":3600');
  expect(text).toContain('state=ok');
});

test('short values are not treated as secrets (they would blank ordinary words)', () => {
  const r = new Redactor(['abc']);
  expect(r.redact('abc')).toBe('abc');
});

test('redactValue scrubs nested values', () => {
  const r = new Redactor(['tok-123456']);
  expect(r.redactValue({ headers: { authorization: 'Bearer tok-123456' }, list: ['tok-123456'] })).toEqual({
    headers: { authorization: `Bearer ${REDACTED}` },
    list: [REDACTED],
  });
});
