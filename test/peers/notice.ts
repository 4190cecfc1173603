// Vitest's global set-up: says once, before the run, which test peers are missing and so which tests skip (with
// PROMPTLINE_TEST_PEERS=required, as in CI, a missing peer stops the run instead).

import { PEERS_COMMAND, peerInstalled, peerNames } from "./load.js"

/** Prints the missing test peers (nothing when all are installed). */
export default function setup(): void {
  const missing = peerNames().filter((name) => !peerInstalled(name))
  if (missing.length === 0) return
  if (process.env.PROMPTLINE_TEST_PEERS === "required")
    throw new Error(`test peers not installed (${missing.join(", ")}): run ${PEERS_COMMAND}`)
  process.stderr.write(
    `test peers not installed (${missing.join(", ")}): the tests that need them skip. ` +
      `${PEERS_COMMAND} installs them; CI runs every test.\n`,
  )
}
