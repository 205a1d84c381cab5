// Redaction for everything the reporters write or print. The workers already redact what they
// record; this second pass also catches secrets in Playwright's own error messages. In a run the
// secrets come from global setup's run context; in merge-reports (no run context) the target
// file's static secrets and the patterns of src/util/redact.ts still apply.
import { Redactor } from '../util/redact';
import { runContextIfAny, targetSecrets } from './run-context';
import { keptSecrets } from './token-keeper';
import { loadTargetFromEnv } from './run-target';

export { runContextIfAny };

export function reportRedactor(env: NodeJS.ProcessEnv = process.env): Redactor {
  const context = runContextIfAny(env);
  const redactor = new Redactor([...(context?.secrets ?? []), ...keptSecrets(context?.stateDir)]);
  try {
    redactor.add(...targetSecrets(loadTargetFromEnv(env)));
  } catch {
    // no loadable target here (e.g. merging elsewhere): the run's own values and the patterns remain
  }
  return redactor;
}

/** A copy of a JSON-like value with every string redacted (keys are the suite's own names). */
export function redactDeep<T>(value: T, redactor: Redactor): T {
  if (typeof value === 'string') return redactor.redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redactor)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, redactor)])) as T;
  }
  return value;
}
