// Loads the test peers (test/peers/package.json): packages a few test files need that the README's set-up does not
// install. `npm run test:peers` installs them (CI does); without them, the files that need them skip, and the test
// run names them (test/peers/notice.ts). With PROMPTLINE_TEST_PEERS=required (CI), a missing peer fails instead.

import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/** The folder of the test peers' package.json. */
export const PEERS_DIR = dirname(fileURLToPath(import.meta.url))

/** What to run to install the test peers. */
export const PEERS_COMMAND = "npm run test:peers"

/** The package names test/peers/package.json lists. */
export function peerNames(): string[] {
  const pkg = JSON.parse(readFileSync(join(PEERS_DIR, "package.json"), "utf8")) as Record<string, unknown>
  return Object.keys((pkg.dependencies ?? {}) as Record<string, string>)
}

/** The package name of an import specifier (`@scope/name/sub` → `@scope/name`, `name/sub` → `name`). */
export function packageName(specifier: string): string {
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!
}

/** Whether the test peer `name` is installed in test/peers/node_modules. */
export function peerInstalled(name: string): boolean {
  return existsSync(join(PEERS_DIR, "node_modules", name, "package.json"))
}

/**
 * The module `specifier` of a test peer, or undefined when the peer is not installed (an error when
 * PROMPTLINE_TEST_PEERS=required). The caller types it: the peers' own types are not part of the set-up.
 */
export async function loadPeer<T>(specifier: string): Promise<T | undefined> {
  const name = packageName(specifier)
  if (!peerNames().includes(name)) throw new Error(`${name} is not a test peer (test/peers/package.json)`)
  if (!peerInstalled(name)) {
    if (process.env.PROMPTLINE_TEST_PEERS === "required")
      throw new Error(`the test peer ${name} is not installed: run ${PEERS_COMMAND}`)
    return undefined
  }
  // Resolved from this file's folder, so test/peers/node_modules is found first.
  return (await import(specifier)) as T
}
