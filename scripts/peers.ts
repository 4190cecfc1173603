// The package sets that live apart from the README's set-up, each a folder with its own package.json and committed
// lockfile, installed on first use with `npm ci` (and again when its lockfile changes):
//   bench       bench/        the peers the benchmarks measure against (pi, LangChain, claude-code-router)
//   test        test/peers/   test-only peers a few test files need (other AI SDK majors, Chromium's driver, ...)
//   lint        tools/lint/   Biome, for `npm run lint` and `npm run format`
// Usage: `node --import tsx scripts/peers.ts install <set>...` or `node --import tsx scripts/peers.ts biome <args>`.

import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** The folder of each package set, relative to the repository. */
export const PEER_SETS = { bench: "bench", test: "test/peers", lint: "tools/lint" } as const

/** One package set's name. */
export type PeerSet = keyof typeof PEER_SETS

/** Where the installed set records the hash of the lockfile it was installed from. */
const STAMP = "node_modules/.promptline-lock-hash"

function lockHash(dir: string): string {
  return createHash("sha256")
    .update(readFileSync(join(dir, "package-lock.json")))
    .digest("hex")
}

/** Whether `set` is installed from its current lockfile. */
export function peersInstalled(set: PeerSet): boolean {
  const dir = join(root, PEER_SETS[set])
  const stamp = join(dir, STAMP)
  return existsSync(stamp) && readFileSync(stamp, "utf8").trim() === lockHash(dir)
}

/** Installs `set` from its lockfile unless it is installed from the current one; exits the process when npm fails. */
export function installPeers(set: PeerSet): void {
  if (peersInstalled(set)) return
  const dir = join(root, PEER_SETS[set])
  process.stderr.write(`promptline: installing the ${set} peers into ${PEER_SETS[set]}/node_modules (npm ci)\n`)
  const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir, stdio: "inherit" })
  if (npm.status !== 0) {
    process.stderr.write(`promptline: npm ci in ${PEER_SETS[set]} failed (exit ${npm.status ?? npm.signal})\n`)
    process.exit(npm.status ?? 1)
  }
  writeFileSync(join(dir, STAMP), `${lockHash(dir)}\n`)
}

function main(args: string[]): number {
  const [command, ...rest] = args
  if (command === "install" && rest.length > 0 && rest.every((s) => s in PEER_SETS)) {
    for (const set of rest) installPeers(set as PeerSet)
    return 0
  }
  if (command === "biome") {
    installPeers("lint")
    const bin = join(root, PEER_SETS.lint, "node_modules/@biomejs/biome/bin/biome")
    const run = spawnSync(process.execPath, [bin, ...rest], { cwd: root, stdio: "inherit" })
    return run.status ?? 1
  }
  process.stderr.write(`usage: peers.ts install <${Object.keys(PEER_SETS).join("|")}>... | peers.ts biome <args>\n`)
  return 2
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2))
