// What the write checks (car creation, the device lifecycle and access, pin attempts) share that is
// not about devices: a route by its catalogue key, the requirement's documented error answer, a record
// as read from an answer. The device checks' own arrangements are devices.ts.
import type { CheckContext, ErrorExpectation } from '../check-api';

export type Item = Record<string, unknown>;
export const route = (ctx: CheckContext, id: string) => ctx.catalogue.route(id);

/** The requirement's documented error answer (requirements.yaml `expect`: the catalogue's error kinds follow it). */
export function documented(ctx: CheckContext): ErrorExpectation {
  const expected = ctx.param<ErrorExpectation | undefined>('expect');
  if (!expected) throw new Error(`requirements.yaml: ${ctx.requirement.id} gives no "expect" (its documented error answer)`);
  return expected;
}
