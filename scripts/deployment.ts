// How a user reaches a deployed server, made here for the proofs and the benchmark: a private
// certificate authority and the certificates it issues (openssl), and this machine's own name
// (neither localhost nor a loopback literal), as a vendor's server is reached by its name.
import { execFileSync } from 'node:child_process';
import dns from 'node:dns/promises';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export function hasCommand(command: string, args = ['-v']): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface Authority {
  dir: string;
  /** The authority's certificate (PEM): what a target file's caFile names. */
  ca: string;
  /** A certificate for these names (DNS names or IP addresses) and its key, signed by this authority. */
  issue(names: string[]): { cert: string; key: string };
}

/** A certificate authority of its own, made in a fresh folder (valid a day). */
export function makeAuthority(label: string): Authority {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `vds-ca-${label}-`));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', `/CN=VDS test authority ${label}`]);
  let issued = 0;
  return {
    dir,
    ca: path.join(dir, 'ca.pem'),
    issue(names) {
      const n = ++issued;
      const san = names.map((h) => (net.isIP(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
      fs.writeFileSync(path.join(dir, `ext${n}.cnf`), `subjectAltName=${san}\n`);
      run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `leaf${n}.key`, '-out', `leaf${n}.csr`, '-subj', `/CN=${names[0]}`]);
      run([
        'x509',
        '-req',
        '-in',
        `leaf${n}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `leaf${n}.pem`,
        '-days',
        '1',
        '-extfile',
        `ext${n}.cnf`,
      ]);
      return { cert: path.join(dir, `leaf${n}.pem`), key: path.join(dir, `leaf${n}.key`) };
    },
  };
}

/**
 * This machine's own name, as a user's server is reached: the host name when it resolves to an
 * address of this machine (not `localhost`, not a literal), else undefined (the test says so).
 */
export async function machineName(): Promise<string | undefined> {
  const name = os.hostname();
  if (!name || name === 'localhost' || net.isIP(name)) return undefined;
  const own = new Set(
    Object.values(os.networkInterfaces())
      .flat()
      .map((i) => i?.address),
  );
  try {
    const found = await dns.lookup(name, { all: true });
    return found.some((a) => own.has(a.address) || a.address.startsWith('127.') || a.address === '::1') ? name : undefined;
  } catch {
    return undefined;
  }
}
