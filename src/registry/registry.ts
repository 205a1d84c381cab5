// The registry of certified implementations: the certificates of verified certification archives
// side by side, as data (registry.json, whose shape registry.schema.json states and docs/registry.md
// documents). Each implementation is one archive; a requirement is matched across them by its id,
// which never changes, so that archives made by different suite versions sit in one matrix, and a
// requirement an archive's suite version did not have is `absent` there: never a pass nor a failure.
// What the archives' verification found is the caller's (src/cli/registry.ts, through verify): this
// module only reads certificates it is handed as verified, and never decides a verdict.
import crypto from 'node:crypto';
import { GROUPS, type ConformanceClass, type Group } from '../catalogue/catalogue';
import { statusChanges } from '../monitoring/compare';
import { CLASSES, type Certificate, type CheckStatus, type ClassVerdict, type StatusChange } from '../verdict/model';

/** The shape's name and version: a reader checks it; a change that is not an addition makes it /2. */
export const REGISTRY_FORMAT = 'vds-conformance-registry/1';

/** A cell of the matrix: the requirement's status in that implementation's certificate, or absent from its suite version. */
export type CellStatus = CheckStatus | 'absent';

/** How an archive was verified before it was published: a replay by the suite version that made it (verify). */
export interface EntryVerification {
  suite: { version: string; contentSha256: string };
  /** The archive's suite content was the verifying suite's own. */
  sameContent: boolean;
  replayed: number;
  reproduced: number;
  /** Checks verified from the record only (a browser's: a replay drives none). */
  recordOnly: number;
  verifiedAt: string;
}

/** What the registry is handed per archive: its certificate as verified, its file, how it was verified. */
export interface VerifiedArchive {
  certificate: Certificate;
  archive: { file: string; sha256: string };
  verification: EntryVerification;
}

interface StatusTally {
  passed: number;
  failed: number;
  notRun: number;
  notApplicable: number;
}

export interface Implementation {
  /** Stable across rebuilds: the product's name and version and the archive's hash. */
  id: string;
  product: { name: string; version?: string; vendor?: string };
  /** When the certification run started. */
  date: string;
  /** The target's environment (cloud, sandbox). */
  environment: string;
  suite: { name: string; version: string; contentSha256?: string; commit?: string };
  /** The requirements the archive's suite version has: how many, and a SHA-256 of their sorted ids. */
  requirementSet: { count: number; sha256: string };
  verdict: Record<ConformanceClass, ClassVerdict>;
  /** The certificate's verdict in one line, as its first line says it. */
  headline?: string;
  /** The requirements of both classes that count (advisory ones aside), by status; notApplicable: those of another environment. */
  requirements: StatusTally;
  checks: StatusTally & { total: number };
  archive: { file: string; sha256: string };
  verification: EntryVerification;
  /** The site's pages of this implementation, relative to the site's folder. */
  pages: { results: string; certificate: string; certificateJson: string };
}

export interface RequirementRow {
  id: string;
  class: ConformanceClass;
  title: string;
  cite: string;
  advisory: boolean;
  /** The route groups its checks touch (the newest certificate that has it says). */
  groups: Group[];
  /** How many implementations fail it, and leave it not run. */
  failedBy: number;
  notRunBy: number;
  /** Per implementation id, exactly the status its certificate states. */
  results: Record<string, CellStatus>;
}

/** What changed between two certifications of one product, one after the other (the regression view). */
interface ProductChange {
  product: string;
  from: string;
  to: string;
  newlyFailing: StatusChange[];
  newlyNotRun: StatusChange[];
  newlyPassing: StatusChange[];
  /** Something failed or stopped running that did not before. */
  worse: boolean;
}

export interface Registry {
  format: typeof REGISTRY_FORMAT;
  generatedBy: { name: string; version: string; contentSha256: string };
  generatedAt: string;
  implementations: Implementation[];
  /** Every requirement of any implementation's suite version, in the catalogue's order. */
  requirements: RequirementRow[];
  changes: ProductChange[];
}

/** Where an implementation's pages are, relative to the site. */
export function implementationDir(id: string): string {
  return `implementations/${id}`;
}

export function buildRegistry(archives: VerifiedArchive[], generatedBy: Registry['generatedBy'], generatedAt: string): Registry {
  const entries = archives.map((a) => ({ ...a, implementation: implementationOf(a) }));
  entries.sort((a, b) => compareEntries(a.implementation, b.implementation));
  return {
    format: REGISTRY_FORMAT,
    generatedBy,
    generatedAt,
    implementations: entries.map((e) => e.implementation),
    requirements: requirementRows(entries),
    changes: productChanges(entries),
  };
}

function implementationOf(a: VerifiedArchive): Implementation {
  const c = a.certificate;
  const p = c.certification?.product;
  const product = { name: p?.name || c.target.name, ...(p?.version ? { version: p.version } : {}), ...(p?.vendor ? { vendor: p.vendor } : {}) };
  const id = `${slug([product.name, product.version].filter(Boolean).join(' '))}-${a.archive.sha256.slice(0, 10)}`;
  const ids = c.requirements.map((r) => r.id).sort();
  const sum = (k: keyof StatusTally) => CLASSES.reduce((n, cls) => n + (c.counts.classes[cls][k] ?? 0), 0);
  const dir = implementationDir(id);
  const made = c.certification?.suite;
  return {
    id,
    product,
    date: c.run.date,
    environment: c.target.env,
    suite: { name: c.suite.name, version: made?.version ?? c.suite.version, ...(made ? { contentSha256: made.contentSha256, commit: made.commit } : {}) },
    requirementSet: { count: ids.length, sha256: crypto.createHash('sha256').update(ids.join('\n')).digest('hex') },
    verdict: c.verdict,
    ...(c.headline ? { headline: `${c.headline.verdict}: ${c.headline.reason}` } : {}),
    requirements: { passed: sum('passed'), failed: sum('failed'), notRun: sum('notRun'), notApplicable: sum('notApplicable') },
    checks: {
      total: c.counts.checks.total,
      passed: c.counts.checks.passed,
      failed: c.counts.checks.failed,
      notRun: c.counts.checks.notRun,
      notApplicable: c.counts.checks.notApplicable ?? 0,
    },
    archive: a.archive,
    verification: a.verification,
    pages: { results: `${dir}/results.html`, certificate: `${dir}/conformance.html`, certificateJson: `${dir}/conformance.json` },
  };
}

/** By product (vendor, then name), then newest certification first. */
function compareEntries(a: Implementation, b: Implementation): number {
  return productKey(a).localeCompare(productKey(b)) || b.date.localeCompare(a.date) || a.id.localeCompare(b.id);
}

function productKey(i: Implementation): string {
  return `${i.product.vendor ?? ''}\u0000${i.product.name}`.toLowerCase();
}

export function productLabel(p: Implementation['product']): string {
  return `${p.name}${p.vendor ? ` (${p.vendor})` : ''}`;
}

/**
 * One row per requirement any certificate has, in the order of the newest certificate (the catalogue's),
 * then those only older ones have; each described as the newest certificate that has it describes it.
 */
function requirementRows(entries: Array<VerifiedArchive & { implementation: Implementation }>): RequirementRow[] {
  const newestFirst = [...entries].sort((a, b) => b.certificate.run.date.localeCompare(a.certificate.run.date));
  const rows = new Map<string, RequirementRow>();
  for (const e of newestFirst) {
    for (const r of e.certificate.requirements) {
      if (rows.has(r.id)) continue;
      rows.set(r.id, {
        id: r.id,
        class: r.class,
        title: r.title,
        cite: r.cite,
        advisory: r.advisory,
        groups: GROUPS.filter((g) => r.groups[g] !== undefined),
        failedBy: 0,
        notRunBy: 0,
        results: {},
      });
    }
  }
  for (const e of entries) {
    const stated = new Map(e.certificate.requirements.map((r) => [r.id, r.status]));
    for (const row of rows.values()) {
      const status: CellStatus = stated.get(row.id) ?? 'absent';
      row.results[e.implementation.id] = status;
      if (status === 'failed') row.failedBy += 1;
      if (status === 'not-run') row.notRunBy += 1;
    }
  }
  return [...rows.values()];
}

/**
 * Per product, each certification against the one before it (by date): the requirements newly failing,
 * newly not run and newly passing (matched by id, as --compare matches them). Answer times are left out:
 * certifications are run from other machines and networks, which a night-to-night comparison is not.
 */
function productChanges(entries: Array<VerifiedArchive & { implementation: Implementation }>): ProductChange[] {
  const byProduct = new Map<string, typeof entries>();
  for (const e of entries) byProduct.set(productKey(e.implementation), [...(byProduct.get(productKey(e.implementation)) ?? []), e]);
  const changes: ProductChange[] = [];
  for (const releases of byProduct.values()) {
    const inOrder = [...releases].sort((a, b) => a.certificate.run.date.localeCompare(b.certificate.run.date));
    for (let i = 1; i < inOrder.length; i++) {
      const [before, after] = [inOrder[i - 1], inOrder[i]];
      const c = statusChanges(before.certificate, after.certificate);
      changes.push({
        product: productLabel(after.implementation.product),
        from: before.implementation.id,
        to: after.implementation.id,
        ...c,
        worse: c.newlyFailing.length > 0 || c.newlyNotRun.length > 0,
      });
    }
  }
  return changes;
}

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9.]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '')
      .slice(0, 60) || 'implementation'
  );
}
