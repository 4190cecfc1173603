import { defineTool } from "../spec.js"
import { actMode } from "./gates.js"
import { ifTool, toolName } from "./mentions.js"
import { taskProgressParameter } from "./task-progress.js"

/** write_to_file: creates a file or replaces all of its content. */
export const writeToFile = defineTool({
  id: "write_to_file",
  kind: "write",
  snippet: "Create a file, or replace everything in one.",
  description:
    "Writes content to a file: creates it (and any missing folders) or replaces everything in it. " +
    "Use it for new files and for rewrites where most of a file changes." +
    ifTool(
      "edit",
      ` For smaller changes to an existing file use ${toolName("edit")}: it needs less output and cannot drop ` +
        "lines by accident.",
    ),
  parameters: {
    path: {
      schema: { type: "string", description: "File path, relative to the working directory." },
      required: true,
      example: "src/greet.ts",
    },
    content: {
      schema: {
        type: "string",
        description:
          "The complete new content of the file: every line, with nothing left out or abbreviated " +
          "(no `// rest unchanged`).",
      },
      required: true,
      example:
        'export function greet(name: string): string {\n  return name.length < 1 ? "Hello!" : "Hello, " + name\n}\n',
    },
    task_progress: taskProgressParameter,
  },
  when: actMode,
  variants: {
    compact: {
      description: "Creates a file or replaces all of its content.",
      parameters: {
        path: { schema: { type: "string", description: "File path." }, required: true, example: "src/greet.ts" },
        content: {
          schema: { type: "string", description: "The complete content of the file, nothing left out." },
          required: true,
          example: 'export const greeting = "Hello"\n',
        },
        task_progress: null,
      },
    },
  },
})
