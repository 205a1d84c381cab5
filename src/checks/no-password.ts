// The spec's promise that client applications never see user passwords (users sign in on the
// service's own page for that reason): a user record serialized whole (an ORM entity's default
// toJSON) hands its password column, or its hash, to every application that reads the user. Each
// user route's answer is read as a client reads it: no member named like a password holds a value,
// and no value is a password the target file gives for its test users (where it gives them).
import { type CheckContext, expectStatus, fail, show } from '../check-api';
import { callValid } from './responses';

/** A member named like a password or its hash (password, passwd, pwd, passwordHash, user_password, ...). */
const PASSWORD_MEMBER = /password|passwd|pwd/i;
/**
 * A known password is looked for only when it is at least this long and is not the user name: a short
 * or guessable one ("demo" for user "demo") may be a nickname or an email's part by chance.
 */
const MIN_KNOWN_PASSWORD = 8;

/** Every member of a JSON value, with its JSON pointer. */
function* members(value: unknown, pointer = ''): Generator<[string, string, unknown]> {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) yield* members(v, `${pointer}/${i}`);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      yield [`${pointer}/${k}`, k, v];
      yield* members(v, `${pointer}/${k}`);
    }
  }
}

export async function corePasswordNotAnswered(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const res = await callValid(ctx, route);
  expectStatus(res, '2xx', `${route.route} serves its purpose: ${route.purpose}`);
  const oauth = ctx.target.oauth ?? {};
  const known = [
    [oauth.password, oauth.username],
    [oauth.otherPassword, oauth.otherUsername],
  ]
    .filter(([p, user]) => p && p.length >= MIN_KNOWN_PASSWORD && p.toLowerCase() !== (user ?? '').toLowerCase())
    .map(([p]) => p!);
  for (const [pointer, name, value] of members(res.json)) {
    const filled = value !== null && value !== '' && !(typeof value === 'object' && Object.keys(value).length === 0);
    if (PASSWORD_MEMBER.test(name) && filled) {
      fail({
        expected: 'a user record without the user\'s password or its hash: "client applications never receive user passwords"',
        actual: `member ${name} holds ${typeof value === 'string' ? `a string of ${value.length} characters` : show(value)}`,
        pointer,
        exchange: res.exchange,
      });
    }
    if (typeof value === 'string' && known.some((p) => value.includes(p))) {
      fail({
        expected: "no value of the answer holding a test user's password (the target file's oauth.password / otherPassword)",
        actual: `member ${name} holds that password`,
        pointer,
        exchange: res.exchange,
      });
    }
  }
}
