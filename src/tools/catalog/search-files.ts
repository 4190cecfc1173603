import { defineTool } from "../spec.js"
import { taskProgressParameter } from "./task-progress.js"

/** search_files: a regular-expression search over the files under a folder. */
export const searchFiles = defineTool({
  id: "search_files",
  kind: "search",
  snippet: "Search file contents with a regular expression.",
  description:
    "Searches the files under a folder for a regular expression and returns each match with its file, line " +
    "number and the lines around it. The regex uses ripgrep syntax (like JavaScript's, without lookaround or backreferences). Files " +
    "that .gitignore excludes are skipped.",
  parameters: {
    path: {
      schema: { type: "string", description: "Folder to search, recursively, relative to the working directory." },
      required: true,
      example: "src",
    },
    regex: {
      schema: { type: "string", description: "The regular expression to look for." },
      required: true,
      example: "function\\s+parseConfig",
    },
    file_pattern: {
      schema: { type: "string", description: "Glob that limits the search to matching file names. Default: all." },
      example: "*.ts",
    },
    task_progress: taskProgressParameter,
  },
  variants: {
    compact: {
      description: "Finds a regular expression in the files under a folder; returns matches with line numbers.",
      parameters: {
        path: { schema: { type: "string", description: "Folder to search." }, required: true, example: "src" },
        file_pattern: { schema: { type: "string", description: "Glob for file names, such as *.ts." } },
        task_progress: null,
      },
    },
  },
})
