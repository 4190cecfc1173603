import { defineTool } from "../spec.js"
import { taskProgressParameter } from "./task-progress.js"

/** list_code_definition_names: an outline of the definitions in a folder's source files. */
export const listCodeDefinitionNames = defineTool({
  id: "list_code_definition_names",
  kind: "definitions",
  snippet: "Outline the classes, functions and types defined in a folder's source files.",
  description:
    "Lists the names of the definitions (classes, functions, methods, types) in the source files directly " +
    "inside a folder. Use it for an overview of unfamiliar code before deciding which files to read.",
  parameters: {
    path: {
      schema: {
        type: "string",
        description: "Folder whose source files to outline, relative to the working directory.",
      },
      required: true,
      example: "src/server",
    },
    task_progress: taskProgressParameter,
  },
})
