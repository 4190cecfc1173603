import { join } from "node:path"
import { alwaysOn, type Candidate, candidate, type Probe } from "./candidate.js"

/** GEMINI.md in one folder; it expands `@` imports. */
export async function findGeminiMd(dir: string, probe: Probe): Promise<Candidate[]> {
  if ((await probe.dirs.kind(dir, "GEMINI.md")) === undefined) return []
  return [candidate(join(dir, "GEMINI.md"), "gemini", probe, dir, alwaysOn, { imports: true })]
}
