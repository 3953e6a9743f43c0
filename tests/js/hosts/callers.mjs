// The callers the host tests let into the Worker and the Node gateway (their GUARD_TOKENS), with
// tokens drawn afresh for each test process, and the Authorization header each one sends.
import { randomBytes } from "node:crypto";

/** {caller: token}: two callers, so that a request of one on the other's run id can be tried. */
export const CALLERS = Object.freeze({
  "agent-a": randomBytes(24).toString("base64url"),
  "agent-b": randomBytes(24).toString("base64url"),
});

/** The GUARD_TOKENS value of the hosts under test. */
export const GUARD_TOKENS = JSON.stringify(CALLERS);

/** The headers of a request by `caller`. */
export function bearer(caller = "agent-a") {
  return { authorization: `Bearer ${CALLERS[caller]}` };
}
