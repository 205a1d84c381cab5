// The certificate's own files in a reports folder: conformance.json, .md and .html, junit.xml
// (one test case per check the run selected) and allure-results/ (one Allure result per such check). Written by the certificate reporter at the end of a run, and by an
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
import type { CheckRecord } from '../verdict/check-record';
import { allureResults, writeAllureResults } from './render-allure';

/** The per-check reports besides the certificate: the checks the run selected (verdict.ts reportedChecks), and their records. */
export interface CheckReports {
  checks: Check[];
  /** The checks the run left out (--grep, a shard, a file filter): counted in JUnit's verdict test case, not listed. */
  notSelected: number;
  /** The checks' records (their requests become the Allure results' steps). */
  records: CheckRecord[];
  /** Write allure-results/ too (not in a shard of a sharded run: the merge writes the whole run's). */
  allure: boolean;
}

/** `certificate` is already redacted; without `reports`, no junit.xml nor Allure results. */
export function writeCertificateFiles(dir: string, certificate: Certificate, redactor: Redactor, reports?: CheckReports): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, REPORT_FILES.certificateJson), `${JSON.stringify(certificate, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, REPORT_FILES.certificateMd), renderMarkdown(certificate));
  fs.writeFileSync(path.join(dir, REPORT_FILES.certificateHtml), renderHtml(certificate));
  if (!reports) return;
  fs.writeFileSync(path.join(dir, REPORT_FILES.junit), redactor.redact(renderJunit(certificate, reports.checks, reports.notSelected)));
  if (reports.allure) writeAllureResults(path.join(dir, REPORT_FILES.allureResults), allureResults(certificate, reports.checks, reports.records), redactor);
}
