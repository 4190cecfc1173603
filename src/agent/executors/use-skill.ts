import { readFile } from "node:fs/promises"
import { homedir } from "node:os"
import path from "node:path"
import { z } from "zod"
import { TAG } from "../../notices.js"
import { wrapTag } from "../../tag-wrap.js"
import { displayPath } from "../workspace.js"
import { taskProgressArg } from "./args.js"
import { failure, readOf, success } from "./outcome.js"
import { defineExecutor } from "./types.js"

const schema = z.object({
  skill_name: z.string({ error: "expected a skill name as a string" }).trim().min(1, "must not be empty"),
  task_progress: taskProgressArg,
})

/** Removes a leading YAML frontmatter block (the skill's name and description, already known). */
function withoutFrontmatter(text: string): string {
  const match = /^\uFEFF?---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/.exec(text)
  return match ? text.slice(match[0].length).replace(/^\s*\n/, "") : text
}

/**
 * use_skill: loads a skill's instructions (its SKILL.md, from the context's skills list). The path
 * comes from the context, not the model, so it is read even outside the workspace.
 */
export const useSkillExecutor = defineExecutor({
  id: "use_skill",
  schema,
  async run(input, env) {
    const skills = env.skills ?? []
    const skill = skills.find((s) => s.name === input.skill_name)
    if (!skill) {
      const names = skills.map((s) => s.name).sort()
      const known = names.length ? `Available skills: ${names.join(", ")}.` : "No skills are available."
      return failure(`There is no skill named "${input.skill_name}". ${known}`, `skill ${input.skill_name}: unknown`)
    }
    const home = env.home ?? homedir()
    const file = skill.path.startsWith("~/")
      ? path.join(home, skill.path.slice(2))
      : path.resolve(env.workspace, skill.path)
    let text: string
    try {
      text = await readFile(file, "utf8")
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "error"
      return failure(
        `The skill "${skill.name}" could not be read from ${skill.path} (${code}).`,
        `skill ${skill.name}: unreadable`,
      )
    }
    const shown = displayPath(env.workspace, file)
    const folder = displayPath(env.workspace, path.dirname(file))
    const body = withoutFrontmatter(text).trimEnd()
    return success(
      `${wrapTag(TAG.skill, body, { attributes: { name: skill.name, folder } })}\nPaths this skill mentions are relative to ${folder}.`,
      `loaded skill ${skill.name}`,
      { touched: readOf(shown) },
    )
  },
})
