// `vds-conformance init`: a commented target file and a .env template in the current folder, to fill in
// for a vendor's or a team's own server. Existing files are never overwritten.
import fs from 'node:fs';
import path from 'node:path';

const TARGET = `# A target file: how the VDS v3 conformance suite reaches your server.
# Every key is described in the suite's docs/targets.md; secrets come from .env as \${VAR}.
name: my-server
# The API root, ending with /v3.
baseUrl: \${VDS_BASE_URL:-http://127.0.0.1:8080/v3}
# cloud: bearer tokens on every route; sandbox: the read routes by id answer without a token.
env: cloud
# Car creation and device association run only when true (they change data on the server).
allowWrites: false
# Optional: a command that starts your implementation; the suite waits for baseUrl and stops it.
# startCommand: ./start-my-server.sh
# Optional: recorded in a certificate (--certify).
# product: { name: My VDS, version: 1.2.3, vendor: Example Ltd }
# Static tokens (any token not given is minted through your sign-in page when oauth is complete).
tokens:
  full: \${VDS_TOKEN_FULL}
  otherUser: \${VDS_TOKEN_OTHER_USER}
# The sign-in page and token endpoint: tokens are minted through them in a browser.
oauth:
  clientId: \${VDS_CLIENT_ID}
  clientSecret: \${VDS_CLIENT_SECRET}
  redirectUri: \${VDS_REDIRECT_URI}
  username: \${VDS_USERNAME}
  password: \${VDS_PASSWORD}
  otherUsername: \${VDS_OTHER_USERNAME}
  otherPassword: \${VDS_OTHER_PASSWORD}
  # A second application WITHOUT devices_management (the spec: that scope is not available to all
  # applications); the suite signs in through it asking for every scope and checks it is not granted,
  # and presents the first application's codes and refresh tokens with its credentials (refused).
  restrictedClientId: \${VDS_RESTRICTED_CLIENT_ID}
  restrictedClientSecret: \${VDS_RESTRICTED_CLIENT_SECRET}
# Known ids; those not given are discovered through /users/me, /users/me/cars and /cars/{id}/trips.
# Devices cannot be discovered: give them for the device checks.
data: {}
`;

const ENV = `# Secrets for the target file (never commit this file). Unset ones are reported, not guessed.
VDS_BASE_URL=
VDS_TOKEN_FULL=
VDS_TOKEN_OTHER_USER=
VDS_CLIENT_ID=
VDS_CLIENT_SECRET=
VDS_REDIRECT_URI=
VDS_USERNAME=
VDS_PASSWORD=
VDS_OTHER_USERNAME=
VDS_OTHER_PASSWORD=
VDS_RESTRICTED_CLIENT_ID=
VDS_RESTRICTED_CLIENT_SECRET=
`;

/** @public bin/vds-conformance.js requires it for `vds-conformance init`. */
export function main(args: string[], dir = process.cwd()): number {
  const targetName = args[0] ?? 'my-target.yaml';
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
  if (written.length) console.log(`wrote ${written.join(' and ')}; fill them in, then: npx vds-conformance --target ./${targetName}`);
  return 0;
}
