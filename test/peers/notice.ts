// Vitest's global set-up: says once, before the run, which test peers are missing and so which tests skip (with
// PROMPTLINE_TEST_PEERS=required, as in CI, a missing peer stops the run instead). redis-server, a system program
// the shared-state tests start, counts as one.

import { findRedisServer, REDIS_INSTALL } from "../../src/gateway/test-helpers/redis-server.js"
import { PEERS_COMMAND, peerInstalled, peerNames } from "./load.js"

/** Prints the missing test peers (nothing when all are installed). */
export default function setup(): void {
  if (!findRedisServer()) {
    if (process.env.PROMPTLINE_TEST_PEERS === "required")
      throw new Error(`redis-server is not installed: ${REDIS_INSTALL} (the shared-state tests need it)`)
    process.stderr.write(`redis-server not installed: the shared-state tests skip. ${REDIS_INSTALL} installs it.
`)
  }
  const missing = peerNames().filter((name) => !peerInstalled(name))
  if (missing.length === 0) return
  if (process.env.PROMPTLINE_TEST_PEERS === "required")
    throw new Error(`test peers not installed (${missing.join(", ")}): run ${PEERS_COMMAND}`)
  process.stderr.write(
    `test peers not installed (${missing.join(", ")}): the tests that need them skip. ` +
      `${PEERS_COMMAND} installs them; CI runs every test.\n`,
  )
}
