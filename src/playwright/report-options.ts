// The certificate reporter's options. They come from the environment (set by scripts/conformance.ts
// from its flags) so that the same reporter behaves the same in a run and in `merge-reports`.
import fs from 'node:fs';
import path from 'node:path';
import { readBaseline } from '../verdict/baseline';
import { readCertificate } from '../monitoring/compare';
import { judgementOptions, OptionError, parseProblems, problemsOf, runOptions, type GateClasses } from '../options/options';
import { reportsDir } from '../options/paths';

export interface CertificateOptions {
  outputDir: string;
  /** Gate on failures not listed in this baseline file. */
  baseline?: string;
  /** Write the run's failures to this baseline file. */
  updateBaseline?: string;
  /** A previous conformance.json to compare with (nightly monitoring). */
  compare?: string;
  /** A route is slower when its sampled fastest answer and median each grew more than this many times (src/monitoring/slowdown.ts)... */
  latencyRatio: number;
  /** ...and by at least this many milliseconds. */
  latencyFloorMs: number;
  /** --history DIR: this run's summary is added there, and the trend pages drawn from it (src/monitoring/history.ts). */
  history?: string;
  /** Write junit.xml, one test case per check (not with VDS_REPORTS=certificate). */
  junit: boolean;
  /** --require-complete: checks not run fail the gate. */
  requireComplete: boolean;
  /** --certify: every class must PASS. */
  certify: boolean;
  /** --gate: the classes whose failures fail the run (default all). */
  gate: GateClasses;
}

export { DEFAULT_LATENCY_FLOOR_MS, DEFAULT_LATENCY_RATIO, OptionError, parseFloor, parseGate, parseRatio } from '../options/options';

export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): CertificateOptions {
  const o = runOptions(env);
  return {
    outputDir: reportsDir(env),
    baseline: o.baseline,
    updateBaseline: o.updateBaseline,
    compare: o.compare,
    history: o.history,
    ...judgementOptions(env),
    junit: !o.certificateOnly,
    requireComplete: o.requireComplete,
    certify: o.certify,
  };
}

/** A folder for --history: it may not exist yet (it is created), but its parent must. */
export function checkHistoryDir(dir: string): string {
  if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) throw new OptionError(`--history: ${dir} is a file, not a folder: give a folder for the nights`);
  if (!fs.existsSync(dir) && !fs.existsSync(path.dirname(dir))) {
    throw new OptionError(`--history: ${dir} is not a folder, nor one that can be made: its parent ${path.dirname(dir)} does not exist`);
  }
  return dir;
}

/**
 * What is wrong with the options before anything runs (the files they name cannot be read, a number
 * is not one), as messages naming the variable and the flag. The command line checks its flags as it
 * reads them; this covers the same options set as variables (`npx playwright test`, CI env).
 */
export function optionProblems(env: NodeJS.ProcessEnv = process.env): string[] {
  const problems = parseProblems(env);
  const { baseline, updateBaseline, compare, history } = runOptions(env);
  if (history) problems.push(...problemsOf('VDS_HISTORY (--history)', () => checkHistoryDir(history)));
  if (compare) problems.push(...problemsOf('VDS_COMPARE (--compare)', () => readCertificate(compare)));
  if (baseline) problems.push(...problemsOf('VDS_BASELINE (--baseline)', () => readBaseline(baseline)));
  if (updateBaseline && !fs.existsSync(path.dirname(updateBaseline))) {
    problems.push(`VDS_UPDATE_BASELINE (--update-baseline): folder ${path.dirname(updateBaseline)} does not exist`);
  }
  if (baseline && updateBaseline) problems.push('VDS_BASELINE and VDS_UPDATE_BASELINE: use one or the other, not both');
  return problems;
}
