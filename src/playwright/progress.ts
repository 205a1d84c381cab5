// The console while a run goes: one line of progress counted in checks (the steps of the route-group
// tests), redrawn in place on a terminal, a line per quarter elsewhere (CI logs); then errors, if
// any. The failures, grouped by requirement, and the verdict come after it, from the certificate
// reporter (render-console.ts); the full detail stays in the reports. Its first line waits for the
// preparation's summary (global setup returns before the preparation ends: fixtures/global-setup.ts).
import type { FullConfig, Reporter, Suite, TestCase, TestError, TestResult, TestStep } from '@playwright/test/reporter';
import { selectedChecks } from '../catalogue/selection';
import { groupOf } from './results';
import { preparationEnded } from '../setup/run-context';

const BAR = 24;
/** How often the header looks whether the preparation ended. */
const HEADER_POLL_MS = 10;

export default class ProgressReporter implements Reporter {
  private total = 0;
  private done = 0;
  private failed = 0;
  private lastDraw = 0;
  private quarter = 0;
  private readonly tty = Boolean(process.stdout.isTTY) && !process.env.CI;
  /** The first line, until it is printed. */
  private header?: string;
  private waiting?: NodeJS.Timeout;

  printsToStdio(): boolean {
    return true;
  }

  onBegin(_config: FullConfig, suite: Suite): void {
    const groups = new Set(suite.allTests().map((t) => groupOf(t)));
    this.total = selectedChecks().filter((p) => groups.has(p.group)).length;
    this.header = `Running ${this.total} checks in ${groups.size} route group${groups.size === 1 ? '' : 's'}\n`;
    // After the preparation's summary (the target, tokens, discovery), as the reader expects it: once
    // the preparation ended (its context or its failure published), or before anything else is printed.
    if (!this.printHeaderIfPrepared()) {
      this.waiting = setInterval(() => this.printHeaderIfPrepared(), HEADER_POLL_MS);
      this.waiting.unref();
    }
  }

  private printHeaderIfPrepared(): boolean {
    if (!preparationEnded()) return false;
    this.printHeader();
    return true;
  }

  private printHeader(): void {
    clearInterval(this.waiting);
    if (this.header === undefined) return;
    process.stdout.write(this.header);
    this.header = undefined;
  }

  onStepEnd(_test: TestCase, _result: TestResult, step: TestStep): void {
    // A check is a top-level step of a conformance test (src/engine/define-suite.ts).
    if (step.category !== 'test.step' || step.parent) return;
    this.printHeader();
    this.done += 1;
    if (step.error) this.failed += 1;
    this.draw(false);
  }

  onStdOut(chunk: string | Buffer): void {
    this.printHeader();
    this.clearLine();
    process.stdout.write(chunk);
  }

  onStdErr(chunk: string | Buffer): void {
    this.printHeader();
    this.clearLine();
    process.stderr.write(chunk);
  }

  onError(error: TestError): void {
    this.printHeader();
    this.clearLine();
    process.stderr.write(`\n${error.message ?? error.value ?? 'error'}\n`);
  }

  onTestEnd(_test: TestCase, result: TestResult): void {
    // A route-group test that ended on an error of its own (not its checks'): say it now.
    const own = result.errors.filter((e) => !/checks failed:/.test(e.message ?? ''));
    if (result.status !== 'passed' && result.status !== 'skipped' && own.length) {
      this.clearLine();
      for (const e of own) process.stderr.write(`\n${e.message ?? e.value ?? ''}\n`);
    }
  }

  onEnd(): void {
    this.printHeader();
    this.draw(true);
    if (this.tty) process.stdout.write('\n');
  }

  private draw(final: boolean): void {
    const total = Math.max(this.total, this.done);
    const line = `  ${this.done}/${total} checks${this.failed ? `, ${this.failed} failed` : ''}`;
    if (this.tty) {
      const now = Date.now();
      if (!final && now - this.lastDraw < 100) return;
      this.lastDraw = now;
      const filled = total ? Math.round((this.done / total) * BAR) : BAR;
      process.stdout.write(`\r[${'#'.repeat(filled)}${'-'.repeat(BAR - filled)}]${line}\u001b[K`);
      return;
    }
    const quarter = total ? Math.floor((this.done / total) * 4) : 4;
    if (quarter > this.quarter || (final && this.quarter < 4)) {
      this.quarter = Math.max(quarter, final ? 4 : quarter);
      process.stdout.write(`${line}\n`);
    }
  }

  private clearLine(): void {
    if (this.tty) process.stdout.write('\r\u001b[K');
  }
}
