import { join } from "node:path"
import { alwaysOn, type Candidate, candidate, copilotRule, type Found, type Probe } from "./candidate.js"
import { filesUnder } from "./tree.js"

/** `.github/copilot-instructions.md` in one folder (always on). */
export async function findCopilotInstructions(dir: string, probe: Probe): Promise<Candidate[]> {
  if ((await probe.dirs.kind(join(dir, ".github"), "copilot-instructions.md")) === undefined) return []
  return [candidate(join(dir, ".github", "copilot-instructions.md"), "copilot", probe, dir, alwaysOn)]
}

/** `.github/instructions/**\/*.instructions.md` under one folder, activated by `applyTo`. */
export async function findCopilotRules(dir: string, probe: Probe): Promise<Found> {
  const folder = join(dir, ".github", "instructions")
  const tree = await filesUnder(probe.dirs, folder, (name) => name.endsWith(".instructions.md"), { recursive: true })
  return { candidates: tree.files.map((abs) => candidate(abs, "copilot", probe, dir, copilotRule)), loops: tree.loops }
}
