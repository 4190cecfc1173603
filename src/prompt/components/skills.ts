import { TAG } from "../../notices.js"
import { data, defineComponent, tpl } from "../component.js"

const INTRO = `# Skills

A skill is a folder of instructions for one kind of task. When a task matches a skill's description, \${% if tools.by_kind.skill %}load it with \${{ tools.by_kind.skill }}\${% else %}read its SKILL.md with \${{ tools.by_kind.read }}\${% endif %} before you start, and follow it. Files it mentions are relative to its folder.

`

/** The available skills by name, description and location; only with skills and a way to read them. */
export const skills = defineComponent(
  "skills",
  (ctx, { tools }) => {
    if (ctx.skills.length === 0 || !(tools.has("read") || tools.has("skill"))) return undefined
    return [tpl(INTRO), data(ctx.skills.map((s) => `- ${s.name}: ${s.description} (${s.path})`).join("\n"))]
  },
  { volatile: true, tag: TAG.skills, reads: ["skills"] },
)
