import { join } from "node:path"
import { alwaysOn, type Candidate, candidate, type Found, type Probe, windsurfRule } from "./candidate.js"
import { filesUnder } from "./tree.js"

/** The legacy single `.windsurfrules` file in one folder (always on). */
export async function findWindsurfrules(dir: string, probe: Probe): Promise<Candidate[]> {
  if ((await probe.dirs.kind(dir, ".windsurfrules")) === undefined) return []
  return [candidate(join(dir, ".windsurfrules"), "windsurf", probe, dir, alwaysOn)]
}

/** `.windsurf/rules/*.md` in one folder, activated by their `trigger` frontmatter. */
export async function findWindsurfRules(dir: string, probe: Probe): Promise<Found> {
  const tree = await filesUnder(probe.dirs, join(dir, ".windsurf", "rules"), (name) => name.endsWith(".md"))
  return {
    candidates: tree.files.map((abs) => candidate(abs, "windsurf", probe, dir, windsurfRule)),
    loops: tree.loops,
  }
}
