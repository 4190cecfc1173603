import { defineTool } from "../spec.js"
import { ifTool, toolName } from "./mentions.js"
import { taskProgressParameter } from "./task-progress.js"

/** read_file: returns a file's text, whole or a range of lines. */
export const readFile = defineTool({
  id: "read_file",
  kind: "read",
  snippet: "Read a file, whole or a range of lines.",
  description:
    "Returns the text of a file. A file too large to return whole is cut off with a notice; read the rest in " +
    "slices with start_line and end_line. It reads files, not folders." +
    ifTool("list", ` To see what a folder holds, use ${toolName("list")}.`),
  parameters: {
    path: {
      schema: { type: "string", description: "File path, relative to the working directory." },
      required: true,
      example: "src/index.ts",
    },
    start_line: {
      schema: { type: "number", description: "First line to return, 1-based and inclusive. Default: 1." },
    },
    end_line: {
      schema: { type: "number", description: "Last line to return, 1-based and inclusive. Default: the last line." },
    },
    task_progress: taskProgressParameter,
  },
  variants: {
    compact: {
      description: "Returns the text of a file.",
      parameters: {
        path: { schema: { type: "string", description: "File path." }, required: true, example: "src/index.ts" },
        start_line: { schema: { type: "number", description: "First line (1-based)." } },
        end_line: { schema: { type: "number", description: "Last line (inclusive)." } },
        task_progress: null,
      },
    },
  },
})
