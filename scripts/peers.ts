// The package sets that live apart from the README's `npm install`, each a folder with its own package.json and
// committed lockfile, installed on first use with `npm ci` (and again when its lockfile changes):
//   clients     test/clients/ the official SDKs the tests use as clients, installed by `npm test` (Vitest's global
//                             set-up) and `npm run typecheck`
//   test        test/peers/   test-only peers a few test files need (other AI SDK majors, Chromium's driver, ...)
//   bench       bench/        the peers the benchmarks measure against (pi, LangChain, claude-code-router, ...)
//   lint        tools/lint/   Biome, for `npm run lint` and `npm run format`
// Usage: `node --import tsx scripts/peers.ts install <set>...` or `node --import tsx scripts/peers.ts biome <args>`.

import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** The folder of each package set, relative to the repository. */
export const PEER_SETS = { clients: "test/clients", test: "test/peers", bench: "bench", lint: "tools/lint" } as const

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

/** Installs `set` from its lockfile unless it is installed from the current one; throws when npm fails. */
export function installPeers(set: PeerSet): void {
  if (peersInstalled(set)) return
  const dir = join(root, PEER_SETS[set])
  process.stderr.write(`promptline: installing the ${set} set into ${PEER_SETS[set]}/node_modules (npm ci)\n`)
  const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir, stdio: "inherit" })
  if (npm.status !== 0)
    throw new Error(`npm ci in ${PEER_SETS[set]} failed (exit ${npm.status ?? npm.signal ?? npm.error?.message})`)
  writeFileSync(join(dir, STAMP), `${lockHash(dir)}\n`)
}

/** Installs each named set; false (with the reason on stderr) when one fails. */
function install(sets: PeerSet[]): boolean {
  try {
    for (const set of sets) installPeers(set)
    return true
  } catch (error) {
    process.stderr.write(`promptline: ${(error as Error).message}\n`)
    return false
  }
}

function main(args: string[]): number {
  const [command, ...rest] = args
  if (command === "install" && rest.length > 0 && rest.every((s) => s in PEER_SETS)) {
    return install(rest as PeerSet[]) ? 0 : 1
  }
  if (command === "biome") {
    if (!install(["lint"])) return 1
    const bin = join(root, PEER_SETS.lint, "node_modules/@biomejs/biome/bin/biome")
    const run = spawnSync(process.execPath, [bin, ...rest], { cwd: root, stdio: "inherit" })
    return run.status ?? 1
  }
  process.stderr.write(`usage: peers.ts install <${Object.keys(PEER_SETS).join("|")}>... | peers.ts biome <args>\n`)
  return 2
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2))
