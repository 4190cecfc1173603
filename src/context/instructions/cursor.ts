import { join } from "node:path"
import { alwaysOn, type Candidate, candidate, cursorRule, type Found, type Probe } from "./candidate.js"
import { filesUnder } from "./tree.js"

/** The legacy single `.cursorrules` file in one folder (always on). */
export async function findCursorrules(dir: string, probe: Probe): Promise<Candidate[]> {
  if ((await probe.dirs.kind(dir, ".cursorrules")) === undefined) return []
  return [candidate(join(dir, ".cursorrules"), "cursor", probe, dir, alwaysOn)]
}

/** `.cursor/rules/**\/*.mdc` under one folder: alwaysApply, globs, description (requested) or manual. */
export async function findCursorRules(dir: string, probe: Probe): Promise<Found> {
  const tree = await filesUnder(probe.dirs, join(dir, ".cursor", "rules"), (name) => name.endsWith(".mdc"), {
    recursive: true,
  })
  return { candidates: tree.files.map((abs) => candidate(abs, "cursor", probe, dir, cursorRule)), loops: tree.loops }
}
