// `vds-conformance registry ARCHIVE... --out DIR` (npm run conformance -- registry ...): every certified
// implementation side by side. Each archive is verified first, by verify's own steps (src/cli/verify.ts:
// opened, its suite version checked, replayed offline and each check's verdict compared with its
// certificate); one that fails is refused by name, with why, and nothing of it is published. The
// verified ones become the registry (src/registry/): registry.json and a static site in DIR.
// An archive an earlier build of DIR verified (the same SHA-256, in its registry.json) is kept as it
// was verified, without a replay: that is how archives of an earlier suite version, which only that
// version can replay, stay beside those the installed one verifies now.
// Exit 0: every archive published; 1: some refused (the rest published); 2: bad arguments or DIR, nothing
// verified; 3: a replay broke (nothing written).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suiteContentHash } from '../certification/identity';
import { buildRegistry, type EntryVerification, type VerifiedArchive } from '../registry/registry';
import { earlierVerifications, RegistryFolderError, writeSite } from '../registry/site';
import { PAGES } from '../registry/pages';
import { suiteInfo } from '../util/suite-info';
import { plural } from '../util/words';
import { EXIT } from '../verdict/exit-codes';
import type { Certificate } from '../verdict/model';
import { UsageError, type RegistryInvocation } from './args';
import { playwright } from './run';
import { notReproduced, openArchive, replayArchive, suiteOf, verdictOf, type OpenedArchive, type Verification } from './verify';

type Outcome =
  | { kind: 'published'; archive: VerifiedArchive; how: string }
  | { kind: 'refused'; why: string }
  | { kind: 'duplicate'; of: string }
  | { kind: 'broken'; why: string };

/** @public The command loads it when asked for (src/cli/main.ts requires it for registry). */
export async function registry(inv: RegistryInvocation, invokedAs = 'npm run conformance --'): Promise<number> {
  let carried: Map<string, EntryVerification>;
  try {
    carried = earlierVerifications(inv.out);
  } catch (err) {
    if (err instanceof RegistryFolderError) throw new UsageError(`registry: ${err.message}. Nothing was verified.`);
    throw err;
  }
  const files = archivesOf(inv.archives);
  const installed = { ...suiteInfo(), contentSha256: suiteContentHash() };
  console.log(
    `Verifying ${plural(files.length, 'certification archive')} with ${installed.name} ${installed.version} (each replayed offline, as verify does), then publishing the verified ones in ${shown(inv.out)}`,
  );
  const published: VerifiedArchive[] = [];
  const refused: Array<{ file: string; why: string }> = [];
  const bySha = new Map<string, string>();
  for (const file of files) {
    const outcome = await verifyOne(file, { carried, bySha, installed, invokedAs });
    switch (outcome.kind) {
      case 'published':
        published.push(outcome.archive);
        bySha.set(outcome.archive.archive.sha256, file);
        console.log(`  ✔ ${shown(file)}: ${outcome.how}`);
        break;
      case 'duplicate':
        console.log(`  = ${shown(file)}: the same archive as ${shown(outcome.of)}, published once`);
        break;
      case 'refused':
        refused.push({ file, why: outcome.why });
        console.log(`  ✘ ${shown(file)} refused, nothing of it published: ${outcome.why}`);
        break;
      case 'broken':
        console.error(`  ${shown(file)}: ${outcome.why}\nThe registry stopped: nothing was written (exit 3).`);
        return EXIT.broken;
    }
  }
  const built = buildRegistry(published, installed, new Date().toISOString());
  writeSite(inv.out, built, new Map(published.map((p) => [p.archive.sha256, p.certificate])));
  console.log(
    [
      '',
      `Registry: ${plural(built.implementations.length, 'implementation')} published in ${shown(inv.out)}: ${PAGES.index} (open it from disk, or publish the folder as it is), ${PAGES.matrix}, ${PAGES.changes}, ${PAGES.data}`,
      ...(refused.length ? [`  ${plural(refused.length, 'archive')} refused: ${refused.map((r) => shown(r.file)).join(', ')}`] : []),
      refused.length
        ? `  Exit status 1: ${plural(refused.length, 'archive')} refused (named above, with why); the others are published`
        : '  Exit status 0: every archive verified and published',
      '',
    ].join('\n'),
  );
  return refused.length ? EXIT.failed : EXIT.passed;
}

/** The archives named: a file as it is (the verification says if it is none), a folder's .tar.gz files in name order. */
function archivesOf(named: string[]): string[] {
  const files: string[] = [];
  for (const p of named) {
    if (fs.existsSync(p) && fs.statSync(p).isDirectory()) {
      const inside = fs
        .readdirSync(p)
        .filter((f) => f.endsWith('.tar.gz'))
        .sort()
        .map((f) => path.join(p, f));
      if (!inside.length) console.log(`registry: no .tar.gz archive in ${shown(p)}`);
      files.push(...inside);
    } else files.push(p);
  }
  const unique = [...new Set(files)];
  if (!unique.length) throw new UsageError(`registry: no certification archive in ${named.map(shown).join(', ')}. Nothing was verified.`);
  return unique;
}

async function verifyOne(
  file: string,
  ctx: { carried: Map<string, EntryVerification>; bySha: Map<string, string>; installed: { version: string; contentSha256: string }; invokedAs: string },
): Promise<Outcome> {
  let opened: OpenedArchive;
  try {
    opened = openArchive(file);
  } catch (err) {
    if (err instanceof UsageError) return { kind: 'refused', why: err.message };
    throw err;
  }
  try {
    const sha256 = crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
    const same = ctx.bySha.get(sha256);
    if (same) return { kind: 'duplicate', of: same };
    const archive = { file: path.basename(file), sha256 };
    const earlier = ctx.carried.get(sha256);
    if (earlier) {
      return {
        kind: 'published',
        archive: { certificate: opened.certificate, archive, verification: earlier },
        how: `${described(opened.certificate)}: verified ${earlier.verifiedAt} by vds-conformance ${earlier.suite.version} (this folder's ${PAGES.data}), kept without a replay`,
      };
    }
    let suite: Verification['suite'];
    try {
      // The installed suite's identity, hashed once for every archive of the call.
      suite = suiteOf(opened, ctx.invokedAs, { version: ctx.installed.version, contentSha256: ctx.installed.contentSha256 });
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      return {
        kind: 'refused',
        why: `${err.message} A registry keeps an archive of another version once that version has verified it: build this folder with it first (its ${PAGES.data} records the verification), then with this one.`,
      };
    }
    console.log(`  … ${shown(file)}: replaying ${plural(opened.certificate.counts.checks.total, 'check')} offline`);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-registry-replay-'));
    let output = '';
    try {
      // Only the certificate and the exchanges: the replay's other reports would be thrown away.
      const v = await replayArchive(opened, suite, { out, playwright, env: { VDS_REPORTS: 'certificate' }, output: (t) => (output += t) });
      if (v === EXIT.usage) return { kind: 'refused', why: `its recorded run cannot be replayed: ${lastLines(output)}` };
      if (typeof v === 'number') return { kind: 'broken', why: `its replay broke before its verdict:\n${lastLines(output)}` };
      if (v.exitCode !== EXIT.passed) {
        return {
          kind: 'refused',
          why: `its exchanges do not give its certificate (${v.verdict}):\n${notReproduced(v)
            .map((l) => `      ${l}`)
            .join('\n')}`,
        };
      }
      const verification: EntryVerification = {
        suite: suite.installed,
        sameContent: suite.sameContent,
        replayed: v.replayed,
        reproduced: v.reproduced,
        recordOnly: v.recordOnly.length,
        verifiedAt: new Date().toISOString(),
      };
      return {
        kind: 'published',
        archive: { certificate: opened.certificate, archive, verification },
        how: `${described(opened.certificate)}: ${v.reproduced} of ${v.replayed} checks reproduced${v.recordOnly.length ? `, ${v.recordOnly.length} verified from the record only` : ''}${suite.sameContent ? '' : ' (the archive was made by another content of this version)'}`,
      };
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  } finally {
    opened.close();
  }
}

/** The product and its certificate's verdict, in a few words. */
function described(c: Certificate): string {
  const p = c.certification?.product;
  const name = [p?.name || c.target.name, p?.version].filter(Boolean).join(' ');
  return `${name}, ${verdictOf(c)}`;
}

function lastLines(text: string, n = 15): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}

/** A path as the user gave it: relative to where they are. */
function shown(p: string): string {
  return path.relative(process.env.INIT_CWD ?? process.cwd(), p) || p;
}
