// The spec's promise that client applications never see user passwords (users sign in on the
// service's own page for that reason): a user record serialized whole (an ORM entity's default
// toJSON) hands its password column, or its hash, to every application that reads the user. Each
// user route's answer is read as a client reads it: no member named as a password is stored holds one,
// and no value is a password the target file gives for its test users (where it gives them).
import { type CheckContext, expectStatus, fail } from '../check-api';
import { callValid } from './responses';

/**
 * The names a password or its hash is stored under, compared without case, "_" and "-" (password,
 * user_password, passwordHash, hashed_password, ...). Not every member whose name holds the word: a
 * vendor's passwordUpdatedAt or hasPassword says something about the password, not the password.
 */
const PASSWORD_MEMBERS = new Set([
  'password',
  'passwd',
  'pwd',
  'userpassword',
  'passwordhash',
  'hashedpassword',
  'passwordhashed',
  'passworddigest',
  'encryptedpassword',
  'cryptedpassword',
  'passwordsalt',
]);
const isPasswordMember = (name: string) => PASSWORD_MEMBERS.has(name.toLowerCase().replace(/[_-]/g, ''));
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
    if (isPasswordMember(name) && typeof value === 'string' && value !== '') {
      fail({
        expected: 'a user record without the user\'s password or its hash: "client applications never receive user passwords"',
        actual: `member ${name} holds a string of ${value.length} characters`,
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
