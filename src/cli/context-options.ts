import { homedir } from "node:os"
import { resolve } from "node:path"
import { Option } from "commander"
import type { CliIO } from "./io.js"

// The context flags of the commands that build a context: light, so that defining the commands (and
// printing their help) loads nothing of the engine. The gather itself is in context-source.ts.

/**
 * The default model when none is given: a current model (not deprecated). src/cli/default-model.test.ts fails when
 * the catalog's lifecycle dates say it is deprecated or retired; the successor it names is the next default.
 */
export const DEFAULT_MODEL = "claude-sonnet-5-5"

/** Flags every command that builds a context accepts. */
export interface ContextFlags {
  context?: string
  cwd?: string
  model?: string
  provider?: string
  variant?: string
  toolCalling?: "native" | "xml"
  placement?: "system" | "context-message"
  trust?: boolean
  mcp?: boolean
}

/** The home folder the CLI works with: `HOME` from its environment, else the user's. */
export const homeOf = (io: CliIO): string => io.env.HOME ?? homedir()

/**
 * Gather options from a command's workspace flags. The CLI reads the project files of the folder it is pointed
 * at (`--no-trust` turns that off); project MCP servers start only with `--trust`, a trusted folder in the
 * user's config, or a yes at the terminal (see `resolveMcpTrust`).
 */
export function workspaceOptions(flags: Pick<ContextFlags, "cwd" | "trust" | "mcp">, io: CliIO) {
  return {
    cwd: resolve(io.cwd, flags.cwd ?? "."),
    date: io.today(),
    env: io.env,
    ...(io.env.HOME ? { home: io.env.HOME } : {}),
    trust: flags.trust ?? true,
    trustMcp: flags.trust === true,
    mcp: flags.mcp ?? true,
  }
}

/** Adds the context flags to a command. */
export function contextOptions(): Option[] {
  return [
    new Option("--context <file>", "read the context from a JSON file instead of gathering the workspace"),
    new Option("--cwd <dir>", "the workspace to gather (default: the current directory)"),
    new Option("--model <id>", `model id (default: "model" in promptline.config.json, else ${DEFAULT_MODEL})`),
    new Option("--provider <name>", "who serves the model (default: guessed from the id)"),
    new Option("--variant <id>", "force a prompt variant instead of matching one"),
    new Option("--tool-calling <dialect>", "override the variant's tool-calling dialect").choices(["native", "xml"]),
    new Option(
      "--placement <where>",
      [
        "where project instructions and volatile facts (date, git status) go (default: context-message)",
        "system: in the system prompt",
        "context-message: in the first user message, so the system prompt is the same in every project",
      ].join("\n"),
    ).choices(["system", "context-message"]),
    new Option("--trust", "also start the project's MCP servers without asking"),
    new Option("--no-trust", "skip project-level files and project MCP servers"),
    new Option("--no-mcp", "do not start or connect to MCP servers"),
  ]
}
