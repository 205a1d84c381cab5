// The certificate's own files in a reports folder: conformance.json, .md and .html, and junit.xml
// (one test case per check). Written by the certificate reporter at the end of a run, and by an
// in-process run of the project's own tests (src/engine/in-process.ts) that reads them as a
// user would: one writer, so both give the same files.
import fs from 'node:fs';
import path from 'node:path';
import type { Redactor } from '../util/redact';
import type { Certificate } from '../verdict/model';
import { REPORT_FILES } from '../options/paths';
import { renderHtml } from './render-html';
import { renderJunit } from './render-junit';
import { renderMarkdown } from './render-md';
import type { Check } from '../verdict/model';

/** `certificate` is already redacted; `junit` holds every check of the run (verdict.ts resolveChecks), or is absent for no junit.xml. */
export function writeCertificateFiles(dir: string, certificate: Certificate, redactor: Redactor, junit?: Check[]): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, REPORT_FILES.certificateJson), `${JSON.stringify(certificate, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, REPORT_FILES.certificateMd), renderMarkdown(certificate));
  fs.writeFileSync(path.join(dir, REPORT_FILES.certificateHtml), renderHtml(certificate));
  if (junit) fs.writeFileSync(path.join(dir, REPORT_FILES.junit), redactor.redact(renderJunit(certificate, junit)));
}
