import { join } from "node:path"
import { compareNames } from "../paths.js"
import { alwaysOn, candidate, type Found, type Probe, pathsField } from "./candidate.js"
import { filesUnder } from "./tree.js"

/** Subfolders of a Cline rules folder that hold other things than rules. */
const NOT_RULES = new Set(["workflows", "hooks", "skills"])

function numericPrefix(name: string): number | undefined {
  const m = /^(\d+)/.exec(name)
  return m ? Number(m[1]) : undefined
}

/** Cline's order: files with a numeric prefix by that number, then the rest by name. */
export function clineOrder(a: string, b: string): number {
  const na = numericPrefix(a)
  const nb = numericPrefix(b)
  if (na !== undefined && nb !== undefined && na !== nb) return na - nb
  if (na !== undefined && nb === undefined) return -1
  if (na === undefined && nb !== undefined) return 1
  return compareNames(a, b)
}

/** The files of a Cline rules folder (`.clinerules/` or `~/Documents/Cline/Rules`), in Cline's order. */
export async function findClineFolder(folder: string, probe: Probe, base: string): Promise<Found> {
  const tree = await filesUnder(probe.dirs, folder, () => true, {
    recursive: true,
    skipFolder: (name, depth) => depth === 0 && NOT_RULES.has(name),
  })
  const files = [...tree.files].sort((a, b) => {
    const ra = a.slice(folder.length + 1)
    const rb = b.slice(folder.length + 1)
    const da = ra.includes("/") ? 1 : 0
    const db = rb.includes("/") ? 1 : 0
    return da !== db ? da - db : clineOrder(ra, rb)
  })
  return { candidates: files.map((abs) => candidate(abs, "cline", probe, base, pathsField)), loops: tree.loops }
}

/** `.clinerules` in one folder: a single file (always on), or a folder of rules with `paths:` frontmatter. */
export async function findClinerules(dir: string, probe: Probe): Promise<Found> {
  const kind = await probe.dirs.kind(dir, ".clinerules")
  if (kind === undefined) return { candidates: [], loops: [] }
  if (kind === "dir") return findClineFolder(join(dir, ".clinerules"), probe, dir)
  return { candidates: [candidate(join(dir, ".clinerules"), "cline", probe, dir, alwaysOn)], loops: [] }
}
