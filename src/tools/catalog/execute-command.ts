import { defineTool } from "../spec.js"
import { taskProgressParameter } from "./task-progress.js"

/** execute_command: runs a shell command in the working directory. */
export const executeCommand = defineTool({
  id: "execute_command",
  kind: "execute",
  snippet: "Run a shell command and get its output and exit code.",
  description:
    "Runs a command line in the user's shell, in the working directory, and returns its output and exit code. " +
    "Write commands for the user's operating system and shell; to run elsewhere, start with `cd <dir> &&`. Nobody can type into a " +
    "running command: use flags that skip prompts and pagers (`--yes`, `git --no-pager`). Start commands that " +
    "never exit by themselves, such as dev servers and watchers, in the background.",
  parameters: {
    command: {
      schema: { type: "string", description: "The command line to run." },
      required: true,
      example: "npm test",
    },
    requires_approval: {
      schema: {
        type: "boolean",
        description:
          "true for commands that are risky or hard to undo (deleting files, installing software, changing " +
          "system settings, sending data out); false for reading, building and testing.",
      },
      example: "false",
    },
    timeout: {
      schema: { type: "number", description: "Seconds to wait before the command is stopped." },
    },
    task_progress: taskProgressParameter,
  },
  variants: {
    compact: {
      description: "Runs a shell command; returns its output and exit code.",
      parameters: {
        requires_approval: null,
        timeout: null,
        task_progress: null,
      },
    },
  },
})
