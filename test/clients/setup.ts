// Vitest's global set-up: installs the official SDK clients (test/clients/) on the first run, from their lockfile,
// as `npm run lint` installs Biome. Every test that uses a client runs; none skips for want of one.

import { installPeers } from "../../scripts/peers.js"

/** Installs the clients unless they are installed from the current lockfile. */
export default function setup(): void {
  installPeers("clients")
}
