import type { InstructionFile } from "../../context/prompt-context.js"
import { TAG } from "../../notices.js"
import { data, defineComponent, type Fragment, tpl } from "../component.js"

const INTRO =
  "# Project instructions\n\nThe user and the project give these instructions. They come before your defaults, but not before safety. Files are listed from the most general to the most specific: where they disagree, the later file wins.\n\n"

const REQUESTED =
  "\n\n## Rules to load when relevant\n\nThese rules apply only to some tasks. When the task matches a description, read the file${% if tools.by_kind.read %} with ${{ tools.by_kind.read }}${% endif %} before you continue.\n\n"

function fileBlock(file: InstructionFile): string {
  const label = file.scope === "user" ? `${file.path} (user)` : file.path
  return `## ${label}\n\n${file.text.trim()}`
}

/** Instruction files (AGENTS.md and friends) and the user's preferences; only when there are any. */
export const userInstructions = defineComponent(
  "user-instructions",
  (ctx) => {
    const always = ctx.instructions.filter((f) => f.activation.when === "always" && f.text.trim() !== "")
    const requested = ctx.instructions.filter((f) => f.activation.when === "requested")
    if (always.length === 0 && requested.length === 0 && !ctx.language) return undefined
    const parts: Fragment[] = [tpl(INTRO)]
    if (always.length > 0) parts.push(data(always.map(fileBlock).join("\n\n")))
    if (requested.length > 0) {
      parts.push(tpl(REQUESTED))
      parts.push(
        data(
          requested
            .map((f) => `- ${f.path}: ${f.activation.when === "requested" ? f.activation.description : ""}`)
            .join("\n"),
        ),
      )
    }
    if (ctx.language) parts.push(tpl("\n\n## Preferences\n\n"), data(ctx.language))
    return parts
  },
  { volatile: true, tag: TAG.projectInstructions, reads: ["instructions", "language"] },
)
