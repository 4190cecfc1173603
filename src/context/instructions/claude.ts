import { join } from "node:path"
import { alwaysOn, type Candidate, candidate, type Found, type Probe, pathsField } from "./candidate.js"
import { filesUnder } from "./tree.js"

/** CLAUDE.md, .claude/CLAUDE.md and the personal CLAUDE.local.md in one folder; all expand `@` imports. */
export async function findClaudeMemory(dir: string, probe: Probe): Promise<Candidate[]> {
  const out: Candidate[] = []
  if ((await probe.dirs.kind(dir, "CLAUDE.md")) !== undefined) {
    out.push(candidate(join(dir, "CLAUDE.md"), "claude", probe, dir, alwaysOn, { imports: true }))
  }
  const folder = (await probe.dirs.kind(dir, ".claude")) === "dir"
  if (folder && (await probe.dirs.kind(join(dir, ".claude"), "CLAUDE.md")) !== undefined) {
    out.push(candidate(join(dir, ".claude", "CLAUDE.md"), "claude", probe, dir, alwaysOn, { imports: true }))
  }
  if ((await probe.dirs.kind(dir, "CLAUDE.local.md")) !== undefined) {
    const extra = { imports: true, personal: true }
    out.push(candidate(join(dir, "CLAUDE.local.md"), "claude", probe, dir, alwaysOn, extra))
  }
  return out
}

/** `.claude/rules/**\/*.md` under `dir`; `paths:` (or `globs:`) frontmatter makes a rule conditional. */
export async function findClaudeRules(rulesDir: string, probe: Probe, base: string): Promise<Found> {
  const tree = await filesUnder(probe.dirs, rulesDir, (name) => name.endsWith(".md"), { recursive: true })
  return {
    candidates: tree.files.map((abs) => candidate(abs, "claude", probe, base, pathsField)),
    loops: tree.loops,
  }
}
