// --certify: after a whole run, one archive a vendor attaches to a certification request and a
// reviewer can check: the certificate in its three forms (whose `certification` section records the
// suite's version, commit and content hash, and the product under test) and every check's redacted
// requests and answers (exchanges.json, written by the certificate reporter).
import fs from 'node:fs';
import path from 'node:path';
import * as tar from 'tar';
import type { Certificate } from '../verdict/model';
import { uniqueName } from '../util/unique-name';
import { REPORT_FILES } from '../options/paths';

export const ARCHIVED = [REPORT_FILES.certificateJson, REPORT_FILES.certificateMd, REPORT_FILES.certificateHtml, REPORT_FILES.exchanges, REPORT_FILES.replay];

/**
 * reports/certification-<product>-<date>.tar.gz (-2, -3, ... for another certification that day: an
 * archive is never replaced); undefined when the run wrote no certificate.
 */
export function writeCertificationArchive(dir: string): string | undefined {
  const certificateFile = path.join(dir, REPORT_FILES.certificateJson);
  if (!fs.existsSync(certificateFile)) return undefined;
  const c = JSON.parse(fs.readFileSync(certificateFile, 'utf8')) as Certificate;
  const product = c.certification?.product?.name ?? c.target.name;
  const slug =
    product
      .toLowerCase()
      .replace(/[^a-z0-9.-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'target';
  const archive = uniqueName(dir, `certification-${slug}-${c.run.date.slice(0, 10)}`, '.tar.gz');
  const files = ARCHIVED.filter((f) => fs.existsSync(path.join(dir, f)));
  tar.create({ gzip: true, file: archive, cwd: dir, sync: true, portable: true }, files);
  return archive;
}
