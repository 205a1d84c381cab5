// Which core checks can see a fault of the reference, read off one clean core run (the proof that a
// fault of the profile fails no core check: faults.test.ts). The reference names, on each answer,
// the fault guards its request reached (reference-server/switches.ts, while tracing); a fault changes
// only what passes its guard. So against a fault:
//   - whose guard no request of the core run reached: every core check sees what it saw on the clean
//     server (the same requests take the same code): nothing to run;
//   - whose guard only GET requests of some checks reached (reads change no state): only those checks
//     can see a difference, and the checks judging what they receive (CORE-ERROR-BODY on their routes);
//   - whose guard a write, or a request outside the checks (the run's preparation, a sign-in in the
//     browser), reached: anything may follow, so every core check runs.
// This assumes what the reference is built to be: the same requests reach the same guards, and a
// read changes nothing.
import type { Exchange } from '../../../src/transport/api';
import type { CheckRecord } from '../../../src/verdict/check-record';
import { parseFaultSpec } from '../../../reference-server/fault-specs';
import { FAULT_GUARDS_HEADER } from '../../../reference-server/switches';

export type CoreSelection = { kind: 'none' } | { kind: 'all' } | { kind: 'checks'; keys: string[] };

export class CoreReach {
  /** guard -> the keys of the checks whose GET requests reached it. */
  private readonly reads = new Map<string, Set<string>>();
  /** Guards a write of a check, or a request outside the checks, reached. */
  private readonly everywhere = new Set<string>();
  /** check key -> the routes its requests went to. */
  private readonly routesOf = new Map<string, Set<string>>();
  /** route -> the keys of the checks that judge the errors other checks receive there. */
  private readonly judgesOf = new Map<string, string[]>();

  constructor(records: CheckRecord[], reachedByAll: Set<string>, judgesErrorsSeen: (requirement: string) => boolean) {
    const attributed = new Set<string>();
    for (const r of records) {
      const routes = new Set<string>();
      for (const e of r.exchanges) {
        if (e.route) routes.add(e.route);
        for (const guard of guardsOf(e)) {
          attributed.add(guard);
          if (e.method === 'GET') {
            let keys = this.reads.get(guard);
            if (!keys) this.reads.set(guard, (keys = new Set()));
            keys.add(r.key);
          } else this.everywhere.add(guard);
        }
      }
      this.routesOf.set(r.key, routes);
      if (judgesErrorsSeen(r.requirement)) for (const route of routes) this.judgesOf.set(route, [...(this.judgesOf.get(route) ?? []), r.key]);
    }
    for (const guard of reachedByAll) if (!attributed.has(guard)) this.everywhere.add(guard);
  }

  /** The core checks to run against a fault (`name` or `name@<route key>`). */
  selectionFor(spec: string): CoreSelection {
    const guards = [spec, parseFaultSpec(spec).name];
    if (guards.some((g) => this.everywhere.has(g))) return { kind: 'all' };
    const keys = new Set(guards.flatMap((g) => [...(this.reads.get(g) ?? [])]));
    if (!keys.size) return { kind: 'none' };
    for (const key of Array.from(keys)) for (const route of this.routesOf.get(key) ?? []) for (const judge of this.judgesOf.get(route) ?? []) keys.add(judge);
    return { kind: 'checks', keys: [...keys].sort() };
  }
}

function guardsOf(e: Exchange): string[] {
  const header = e.responseHeaders?.[FAULT_GUARDS_HEADER];
  return header ? header.split(',').filter(Boolean) : [];
}
