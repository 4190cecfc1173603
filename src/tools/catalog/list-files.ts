import { defineTool } from "../spec.js"
import { taskProgressParameter } from "./task-progress.js"

/** list_files: lists a folder's entries, top level or recursively. */
export const listFiles = defineTool({
  id: "list_files",
  kind: "list",
  snippet: "List the files and folders in a folder.",
  description:
    "Lists what a folder holds: its top level, or everything below it when recursive is true. Entries that " +
    ".gitignore excludes are left out, and long listings are cut off with a notice. Use it to learn a " +
    "project's layout; there is no need to list a folder to confirm a file you just wrote.",
  parameters: {
    path: {
      schema: { type: "string", description: "Folder to list, relative to the working directory." },
      required: true,
      example: ".",
    },
    recursive: {
      schema: { type: "boolean", description: "true to list everything below the folder. Default: false." },
    },
    task_progress: taskProgressParameter,
  },
})
