import { defineTool } from "../spec.js"
import { actMode } from "./gates.js"
import { taskProgressParameter } from "./task-progress.js"

const FORMAT = [
  "*** Begin Patch",
  "*** Add File: <path>",
  "+<every line of the new file, each prefixed with +>",
  "*** Update File: <path>",
  "*** Move to: <new path>   (optional rename)",
  "@@ <a line above the change, e.g. its function's header, if needed to locate it>",
  " <unchanged line, prefixed with a space>",
  "-<line to remove>",
  "+<line to add>",
  "*** Delete File: <path>",
  "*** End Patch",
].join("\n")

/**
 * apply_patch: adds, updates, moves and deletes files with one patch in the format GPT models are trained on.
 * An alternative to replace_in_file: it is hidden when another edit tool is already enabled (see docs/tools.md).
 */
export const applyPatch = defineTool({
  id: "apply_patch",
  kind: "edit",
  snippet: "Add, change, move or delete files with one patch.",
  description:
    "Applies a patch that adds, updates, moves and deletes files in one call. The input is plain text in this " +
    `format, with any number of file sections:\n\n${FORMAT}\n\n` +
    "In an update, show about three unchanged lines before and after each change so its place is unambiguous; " +
    "when that is not enough, add @@ lines naming the enclosing class or function. Never use line numbers. " +
    "Paths are relative to the working directory.",
  guidelines: ["Put related changes, across any number of files, in one patch."],
  parameters: {
    input: {
      schema: { type: "string", description: "The whole patch, from *** Begin Patch to *** End Patch." },
      required: true,
      example:
        "*** Begin Patch\n*** Update File: src/math.ts\n@@ export function max(a: number, b: number): number {\n" +
        "-  return a < b ? a : b\n+  return a > b ? a : b\n }\n*** End Patch",
    },
    task_progress: taskProgressParameter,
  },
  // Shown in act mode unless the variant already enabled another edit tool (replace_in_file comes first).
  when: (input) => actMode(input) && !input.kinds.has("edit"),
})
