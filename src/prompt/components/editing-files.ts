import { defineComponent } from "../component.js"

const WRITE = `- \${{ tools.by_kind.write }} writes a whole file: use it for new files and for rewrites. Give the complete content; never leave placeholders such as "rest unchanged".`

const REPLACE = `- \${{ tools.by_kind.edit }} changes parts of a file with SEARCH/REPLACE blocks. Each SEARCH must match the file exactly, whitespace included, and be just long enough to be unique. List blocks in file order; an empty REPLACE deletes.`

/** Shown with native tools; the XML dialect's tool docs carry their own example. */
const REPLACE_EXAMPLE = ` For example:

\`\`\`
<<<<<<< SEARCH
function total(items) {
  return items.length
=======
function total(items) {
  return items.reduce((sum, item) => sum + item.price, 0)
>>>>>>> REPLACE
\`\`\``

const PATCH = `- \${{ tools.by_kind.edit }} applies a patch: \`*** Begin Patch\`, then per file \`*** Update File: path\` (hunks starting with \`@@\`, lines prefixed by space, \`-\` or \`+\`), \`*** Add File: path\` (every line prefixed by \`+\`) or \`*** Delete File: path\`, and \`*** End Patch\`. Give three lines of context around each change.`

/** Shown with native tools; the XML dialect's tool docs carry their own example. */
const PATCH_EXAMPLE = ` For example:

\`\`\`
*** Begin Patch
*** Update File: src/cart.js
@@ function total(items) {
-  return items.length
+  return items.reduce((sum, item) => sum + item.price, 0)
 }
*** End Patch
\`\`\``

const COMMON = `\${% if tools.by_kind.read %}- Read a file before you change it, and base each edit on the content the last tool result showed: formatters may have changed it since.
\${% endif %}- \${% if tools.by_kind.edit %}Prefer small targeted edits to rewriting large files. \${% endif %}Keep the project's style, and do not add comments that narrate your change.`

/** How to change files safely with whichever edit and write tools are enabled. */
export const editingFiles = defineComponent(
  "editing-files",
  (_ctx, env) => {
    if (!env.tools.has("edit") && !env.tools.has("write")) return undefined
    const lines = ["# Editing files", ""]
    if (env.tools.has("write")) lines.push(WRITE)
    const examples = env.toolCalling === "native"
    if (env.tools.hasId("apply_patch")) lines.push(examples ? PATCH + PATCH_EXAMPLE : PATCH)
    else if (env.tools.has("edit")) lines.push(examples ? REPLACE + REPLACE_EXAMPLE : REPLACE)
    lines.push(COMMON)
    return lines.join("\n")
  },
  { reads: [] },
)
