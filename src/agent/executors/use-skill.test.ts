import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type TempWorkspace, tempWorkspace, textOf } from "./test-helpers/workspace.js"

let ws: TempWorkspace
let home: TempWorkspace
beforeEach(async () => {
  ws = await tempWorkspace()
  home = await tempWorkspace("promptline-home-")
  await ws.write(
    ".promptline/skills/release/SKILL.md",
    "---\nname: release\ndescription: Cut a release\n---\n\n# Release\n\n1. Run scripts/bump.sh\n",
  )
  await home.write(".config/skills/review/SKILL.md", "# Review\nRead every diff twice.\n")
})
afterEach(async () => {
  await ws.dispose()
  await home.dispose()
})

const skills = [
  {
    name: "release",
    description: "Cut a release",
    path: ".promptline/skills/release/SKILL.md",
    scope: "project" as const,
  },
  { name: "review", description: "Review code", path: "~/.config/skills/review/SKILL.md", scope: "user" as const },
  { name: "broken", description: "Gone", path: "skills/broken/SKILL.md", scope: "project" as const },
]

describe("use_skill", () => {
  it("loads a project skill without its frontmatter and names its folder", async () => {
    const out = await ws.run("use_skill", { skill_name: "release" }, { skills })
    expect(out.isError).toBe(false)
    expect(textOf(out)).toBe(
      '<skill name="release" folder=".promptline/skills/release">\n# Release\n\n1. Run scripts/bump.sh\n</skill>\nPaths this skill mentions are relative to .promptline/skills/release.',
    )
    expect(out.touched).toEqual([{ path: ".promptline/skills/release/SKILL.md", access: "read" }])
  })

  it("loads a user skill from the home folder", async () => {
    const out = await ws.run("use_skill", { skill_name: "review" }, { skills, home: home.root })
    expect(textOf(out)).toContain("Read every diff twice.")
  })

  it("lists the available skills when the name is unknown, and reports an unreadable one", async () => {
    const unknown = await ws.run("use_skill", { skill_name: "deploy" }, { skills })
    expect(textOf(unknown)).toBe('There is no skill named "deploy". Available skills: broken, release, review.')
    const broken = await ws.run("use_skill", { skill_name: "broken" }, { skills })
    expect(broken.isError).toBe(true)
    expect(textOf(broken)).toContain("ENOENT")
    expect(textOf(await ws.run("use_skill", { skill_name: "x" }))).toContain("No skills are available.")
  })
})
