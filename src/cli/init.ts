// `vds-conformance init [TARGET-FILE]`: a commented target file and a .env template in the folder the
// user is in, to fill in for a vendor's or a team's own server (existing files are never overwritten),
// then what that target file cannot run yet for a certification, and how to get each missing input
// (src/setup/readiness.ts: the same list a --certify run prints before it sends anything).
import fs from 'node:fs';
import path from 'node:path';
import dotenv from 'dotenv';
import { loadCatalogue } from '../catalogue/catalogue';
import { chooseBrowser } from '../setup/browser';
import { readinessOf } from '../setup/readiness';
import { loadTarget, TargetError } from '../setup/target';
import { readinessLines } from '../rendering/render-readiness';

const TARGET = `# A target file: how the VDS v3 conformance suite reaches your server (docs/targets.md describes every
# key). Secrets come from .env as \${VAR}; a key whose variable is unset counts as not given.
name: my-server
# Optional: recorded in a certificate (--certify) and in its archive's name.
# product: { name: My VDS, version: 1.2.3, vendor: Example Ltd }
# The API root, ending with /v3.
baseUrl: \${VDS_BASE_URL:-http://127.0.0.1:8080/v3}
# cloud: bearer tokens on every route; sandbox: the read routes by id answer without a token.
env: cloud
# A private certificate authority's PEM file, relative to this file: trusted by the API requests and the browser.
# caFile: ./company-ca.pem
# Car creation and device association run only when true (they change data on the server); a
# certification needs them (docs/targets.md, "What a run changes").
allowWrites: false
# Optional: a command that starts your implementation; the suite waits for baseUrl and stops it.
# startCommand: ./start-my-server.sh
# OAuth credentials: the suite signs in through your sign-in page in a browser and mints the tokens it
# needs (every scope, none, all but one; a second user's).
oauth:
  clientId: \${VDS_CLIENT_ID}
  clientSecret: \${VDS_CLIENT_SECRET}
  redirectUri: \${VDS_REDIRECT_URI}
  username: \${VDS_USERNAME}
  password: \${VDS_PASSWORD}
  # A second test user.
  otherUsername: \${VDS_OTHER_USERNAME}
  otherPassword: \${VDS_OTHER_PASSWORD}
  # A second registered application WITHOUT devices_management (the spec: that scope is not available to
  # all applications); the suite signs the primary user in through it asking for every scope, and presents
  # the first application's codes and refresh tokens with its credentials (they must be refused).
  restrictedClientId: \${VDS_RESTRICTED_CLIENT_ID}
  restrictedClientSecret: \${VDS_RESTRICTED_CLIENT_SECRET}
# Tokens only your operator's tools can make (docs/certify.md, "Expired and revoked tokens"): a command
# each, run by a shell with .env's variables. A revoked token: revoke the token the suite hands you in
# $VDS_TOKEN_TO_REVOKE, e.g. at your authorization server's revocation endpoint (RFC 7009):
# tokenCommands:
#   revoked: curl -fsS -u "$VDS_CLIENT_ID:$VDS_CLIENT_SECRET" -d "token=$VDS_TOKEN_TO_REVOKE" https://auth.example.com/oauth2/revoke
# An expired token: give none, and a run keeps a token it minted (.vds-conformance/) for a later run,
# taken once its expires_in has passed; or a command that prints one (tokenCommands.expired).
# Known ids. Users, cars and trips are discovered through /users/me, /users/me/cars and /cars/{id}/trips;
# devices cannot be (no route lists them): give them for the device checks.
data:
  # A device of the primary user never associated, and its pin: the run associates it with the user by
  # its pin (on a server that keeps its state, a device never associated for each run).
  freeDeviceId: \${VDS_FREE_DEVICE_ID}
  devicePin: \${VDS_FREE_DEVICE_PIN}
  # A device of the primary user on no car: associated with a car and freed again.
  deviceForCarId: \${VDS_DEVICE_FOR_CAR_ID}
  # A device the run may lock with wrong pins, and its pin (nothing documented unlocks it: on a server
  # that keeps its state, one never locked for each run).
  lockableDeviceId: \${VDS_LOCKABLE_DEVICE_ID}
  lockableDevicePin: \${VDS_LOCKABLE_DEVICE_PIN}
`;

const ENV = `# Secrets for the target file (never commit this file). Unset ones are reported, not guessed.
VDS_BASE_URL=
VDS_CLIENT_ID=
VDS_CLIENT_SECRET=
VDS_REDIRECT_URI=
VDS_USERNAME=
VDS_PASSWORD=
VDS_OTHER_USERNAME=
VDS_OTHER_PASSWORD=
VDS_RESTRICTED_CLIENT_ID=
VDS_RESTRICTED_CLIENT_SECRET=
VDS_FREE_DEVICE_ID=
VDS_FREE_DEVICE_PIN=
VDS_DEVICE_FOR_CAR_ID=
VDS_LOCKABLE_DEVICE_ID=
VDS_LOCKABLE_DEVICE_PIN=
`;

/**
 * @public src/cli/main.ts requires it for `init [FILE]`: writes the files (never over existing ones) in
 * the folder the user is in, then says what the target file cannot run yet (its .env read).
 */
export function init(targetName: string, invokedAs: string, dir = process.env.INIT_CWD ?? process.cwd()): number {
  const written: string[] = [];
  for (const [name, text] of [
    [targetName, TARGET],
    ['.env', ENV],
  ] as const) {
    const file = path.resolve(dir, name);
    if (fs.existsSync(file)) {
      console.log(`kept ${name}: it exists already`);
      continue;
    }
    fs.writeFileSync(file, text);
    written.push(name);
  }
  const run = invokedAs.startsWith('npm') ? 'npm run conformance --' : `npx ${invokedAs}`;
  if (written.length) console.log(`wrote ${written.join(' and ')}; fill them in, then: ${run} --target ./${targetName} (and --certify to certify)`);
  const envFile = path.join(dir, '.env');
  const env = { ...process.env, ...(fs.existsSync(envFile) ? dotenv.parse(fs.readFileSync(envFile)) : {}) };
  try {
    const target = loadTarget(path.resolve(dir, targetName), env);
    console.log(`\n${readinessLines(readinessOf(target, loadCatalogue(), chooseBrowser(env))).join('\n')}`);
  } catch (err) {
    if (!(err instanceof TargetError)) throw err;
    console.log(`\n${err.message}`);
  }
  return 0;
}
