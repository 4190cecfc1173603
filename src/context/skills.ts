import { basename, dirname, join } from "node:path"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import type { DirCache } from "./dir-cache.js"
import type { GitignoreRules } from "./gitignore.js"
import { splitFrontmatter } from "./instructions/frontmatter.js"
import { readTextFile } from "./instructions/read.js"
import { type LinkGuard, linkDiagnostic } from "./link-guard.js"
import { foldersBetween } from "./paths.js"
import type { SkillInfo } from "./prompt-context.js"
import type { EntryStatus, GatherEntry } from "./report.js"
import { UNTRUSTED_FILES } from "./untrusted.js"
import { promptlineUserDir, type UserRoot } from "./user-roots.js"

/** Folders, relative to each project folder, that hold skills (one subfolder with a SKILL.md per skill). */
export const PROJECT_SKILL_DIRS = [".agents/skills", ".claude/skills", ".cline/skills", ".promptline/skills"] as const

/** The longest skill description the Agent Skills format allows. */
export const MAX_SKILL_DESCRIPTION = 1024

const NAME = /^[a-z0-9-]{1,64}$/

/** What collecting skills needs. */
export interface SkillsInput {
  cwd: string
  root: string
  home: string
  env: Record<string, string | undefined>
  trust: boolean
  userRoots: ReadonlySet<UserRoot>
  dirs: DirCache
  gitignore: GitignoreRules
  /** Refuses SKILL.md files whose symbolic links lead out of the workspace or the user's config folders. */
  links: LinkGuard
  display: (abs: string, scope: "user" | "project") => string
}

/** The skills for the context, a report entry per SKILL.md considered, and diagnostics. */
export interface CollectedSkills {
  skills: SkillInfo[]
  entries: GatherEntry[]
  diagnostics: Diagnostic[]
}

function userSkillDirs(input: SkillsInput): string[] {
  const h = input.home
  const byRoot: Record<UserRoot, string[]> = {
    promptline: [join(promptlineUserDir(h, input.env), "skills")],
    claude: [join(h, ".claude", "skills")],
    codex: [join(h, ".agents", "skills"), join(h, ".codex", "skills")],
    gemini: [join(h, ".gemini", "skills")],
    cline: [join(h, ".cline", "skills")],
    cursor: [],
  }
  return [...input.userRoots].flatMap((root) => byRoot[root])
}

async function skillFiles(dirs: DirCache, folder: string): Promise<string[]> {
  const out: string[] = []
  for (const e of (await dirs.list(folder)) ?? []) {
    if (e.name.startsWith(".")) continue
    const kind = e.kind === "symlink" ? await dirs.kind(folder, e.name) : e.kind
    if (kind !== "dir") continue
    const sub = join(folder, e.name)
    if ((await dirs.kind(sub, "SKILL.md")) !== undefined) out.push(join(sub, "SKILL.md"))
  }
  return out
}

interface Parsed {
  status: EntryStatus
  reason?: string
  skill?: SkillInfo
  diagnostics: Diagnostic[]
}

async function parseSkill(abs: string, scope: "user" | "project", path: string, links: LinkGuard): Promise<Parsed> {
  const link = await links.check(abs, scope)
  if (!link.ok) return { status: "skipped", reason: link.reason, diagnostics: [linkDiagnostic(link, path)] }
  const read = await readTextFile(link.real)
  if (!read.ok) {
    const d = diagnostic("warning", "skill-unreadable", `skill skipped: ${read.message}`, { path })
    return { status: "failed", reason: read.message, diagnostics: [d] }
  }
  const bad = (reason: string): Parsed => ({
    status: "skipped",
    reason,
    diagnostics: [diagnostic("error", "skill-invalid", `skill skipped: ${reason}`, { path })],
  })
  const fm = splitFrontmatter(read.text)
  if (!fm.present) return bad("SKILL.md has no frontmatter with a name and a description")
  if (fm.error) return bad(`the frontmatter is not understood (${fm.error.message})`)
  const name = fm.data.name
  const description = fm.data.description
  if (typeof name !== "string" || name === "") return bad("`name` is missing")
  if (!NAME.test(name)) return bad(`\`name\` must be 1-64 of [a-z0-9-], got \`${name}\``)
  if (typeof description !== "string" || description.trim() === "") return bad("`description` is missing")
  if (description.length > MAX_SKILL_DESCRIPTION) {
    return bad(`\`description\` has ${description.length} characters; at most ${MAX_SKILL_DESCRIPTION} are allowed`)
  }
  const diagnostics: Diagnostic[] = []
  const folder = basename(dirname(abs))
  if (folder !== name) {
    const message = `skill name \`${name}\` differs from its folder \`${folder}\``
    diagnostics.push(diagnostic("warning", "skill-name-mismatch", message, { path }))
  }
  const skill: SkillInfo = { name, description: description.trim(), path, scope }
  const hidden = fm.data["disable-model-invocation"] === true || fm.data["disable-model-invocation"] === "true"
  if (hidden)
    return { status: "hidden", reason: "`disable-model-invocation` hides it from the model", skill, diagnostics }
  return { status: "loaded", skill, diagnostics }
}

/** Finds SKILL.md folders from cwd up to the git root, then in the user roots; the first of a name wins. */
export async function collectSkills(input: SkillsInput): Promise<CollectedSkills> {
  const places: { folder: string; scope: "user" | "project" }[] = []
  for (const dir of foldersBetween(input.root, input.cwd).reverse()) {
    for (const rel of PROJECT_SKILL_DIRS) places.push({ folder: join(dir, rel), scope: "project" })
  }
  for (const folder of userSkillDirs(input)) places.push({ folder, scope: "user" })
  const found = await Promise.all(
    places.map(async (p) => (await skillFiles(input.dirs, p.folder)).map((abs) => ({ abs, scope: p.scope }))),
  )
  const out: CollectedSkills = { skills: [], entries: [], diagnostics: [] }
  const taken = new Map<string, string>()
  for (const { abs, scope } of found.flat()) {
    const path = input.display(abs, scope)
    const entry = (status: EntryStatus, reason?: string, detail?: string): GatherEntry => {
      const e: GatherEntry = { kind: "skill", path, scope, status }
      if (reason !== undefined) e.reason = reason
      if (detail !== undefined) e.detail = detail
      return e
    }
    if (scope === "project" && !input.trust) {
      out.entries.push(entry("skipped", UNTRUSTED_FILES))
      continue
    }
    const ignored = scope === "project" ? await input.gitignore.reason(abs, false) : undefined
    if (ignored) {
      out.entries.push(entry("ignored", ignored))
      continue
    }
    const parsed = await parseSkill(abs, scope, path, input.links)
    out.diagnostics.push(...parsed.diagnostics)
    const skill = parsed.skill
    if (!skill) {
      out.entries.push(entry(parsed.status, parsed.reason))
      continue
    }
    const first = taken.get(skill.name)
    if (first !== undefined) {
      const reason = `the skill \`${skill.name}\` is already defined by ${first}`
      out.diagnostics.push(diagnostic("warning", "skill-shadowed", `${reason}; this one is ignored`, { path }))
      out.entries.push(entry("shadowed", reason, skill.name))
      continue
    }
    taken.set(skill.name, path)
    out.entries.push(entry(parsed.status, parsed.reason, skill.name))
    if (parsed.status === "loaded") out.skills.push(skill)
  }
  return out
}
