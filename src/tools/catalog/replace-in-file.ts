import { defineTool } from "../spec.js"
import { actMode } from "./gates.js"
import { taskProgressParameter } from "./task-progress.js"

const BLOCK = "<<<<<<< SEARCH\n[exact text now in the file]\n=======\n[the text to put in its place]\n>>>>>>> REPLACE"

/** replace_in_file: edits parts of a file with SEARCH/REPLACE blocks. */
export const replaceInFile = defineTool({
  id: "replace_in_file",
  kind: "edit",
  snippet: "Change parts of a file with SEARCH/REPLACE blocks.",
  description:
    "Changes parts of an existing file. The diff holds one or more blocks, each naming text to find and the " +
    `text to put in its place:\n\n${BLOCK}\n\n` +
    "The SEARCH text must match the file exactly, whitespace and indentation included, in whole lines; make " +
    "it just long enough to be unique. Each block changes the first place it matches. Put blocks in the order " +
    "their text appears in the file. An empty REPLACE part deletes; to move code, delete it with one block and " +
    "insert it with another.",
  guidelines: ["Make several changes to one file in one call, with one block per change."],
  parameters: {
    path: {
      schema: { type: "string", description: "File path, relative to the working directory." },
      required: true,
      example: "src/math.ts",
    },
    diff: {
      schema: { type: "string", description: "One or more SEARCH/REPLACE blocks." },
      required: true,
      example:
        "<<<<<<< SEARCH\nexport function max(a: number, b: number): number {\n  return a < b ? a : b\n" +
        "=======\nexport function max(a: number, b: number): number {\n  return a > b ? a : b\n>>>>>>> REPLACE",
    },
    task_progress: taskProgressParameter,
  },
  when: actMode,
  variants: {
    compact: {
      description:
        "Changes parts of a file. Each block is a line `<<<<<<< SEARCH`, the exact whole lines now in the file, " +
        "`=======`, the new lines, and `>>>>>>> REPLACE`. Make several changes to one file in one call, one block each.",
      // Said in the description above, so not again among the guidelines.
      guidelines: [],
      parameters: {
        path: { schema: { type: "string", description: "File path." }, required: true, example: "src/math.ts" },
        diff: {
          schema: { type: "string", description: "The SEARCH/REPLACE blocks." },
          required: true,
          example: "<<<<<<< SEARCH\n  return a < b ? a : b\n=======\n  return a > b ? a : b\n>>>>>>> REPLACE",
        },
        task_progress: null,
      },
    },
  },
})
