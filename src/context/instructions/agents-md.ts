import { join } from "node:path"
import { alwaysOn, type Candidate, candidate, type Probe } from "./candidate.js"

/** AGENTS.md in one folder; an AGENTS.override.md beside it replaces it. */
export async function findAgentsMd(dir: string, probe: Probe): Promise<Candidate[]> {
  const override = (await probe.dirs.kind(dir, "AGENTS.override.md")) !== undefined
  const plain = (await probe.dirs.kind(dir, "AGENTS.md")) !== undefined
  const out: Candidate[] = []
  if (override) out.push(candidate(join(dir, "AGENTS.override.md"), "agents-md", probe, dir, alwaysOn))
  if (plain) {
    const skip = override ? "replaced by AGENTS.override.md in the same folder" : undefined
    out.push(candidate(join(dir, "AGENTS.md"), "agents-md", probe, dir, alwaysOn, skip ? { skip } : {}))
  }
  return out
}
