import { realpathSync, statSync } from "node:fs"
import { homedir } from "node:os"
import { resolve } from "node:path"
import type { Diagnostic } from "../diagnostics.js"
import { FileError } from "../errors.js"
import { fsProblem } from "../fs-problem.js"
import { DirCache } from "./dir-cache.js"
import { findRepositoryRoot, readGit } from "./git.js"
import { GitignoreRules } from "./gitignore.js"
import { DEFAULT_INSTRUCTION_BUDGET } from "./instructions/budget.js"
import { collectInstructions } from "./instructions/collect.js"
import { LinkGuard } from "./link-guard.js"
import { localDate } from "./local-date.js"
import type { McpServerConfig } from "./mcp/config.js"
import { gatherMcp } from "./mcp/servers.js"
import { displayPath, isInside, realPath, toPosix } from "./paths.js"
import { type PlatformFacts, readPlatform } from "./platform.js"
import { PROMPT_CONTEXT_VERSION, type PromptContext, type PromptContextInput, parseContext } from "./prompt-context.js"
import type { GatherReport } from "./report.js"
import { collectSkills } from "./skills.js"
import { LIBRARY_HINTS, untrustedDiagnostics } from "./untrusted.js"
import { USER_ROOTS, type UserRoot } from "./user-roots.js"

export { localDate } from "./local-date.js"

/** Context fields gather fills in itself; every other PromptContext field is passed through. */
type Gathered = "version" | "cwd" | "platform" | "date" | "git" | "instructions" | "skills" | "mcpServers"

/** Settings for one gather, plus the PromptContext fields it passes through (model, mode, features, ...). */
export type GatherOptions = Omit<PromptContextInput, Gathered> & {
  /** The folder the agent works in. */
  cwd: string
  /** Today as YYYY-MM-DD; defaults to the local date, read once here. */
  date?: string
  /**
   * How far the workspace is trusted. Left out (the default, as on the command line): project files (instructions,
   * skills, MCP configs) are read, and the project's MCP servers, commands it chose, are listed but not started.
   * `true`: they start too. `false`: no project file is read. What is left out comes back as a diagnostic
   * (`project-untrusted`, `mcp-untrusted`) saying how to enable it.
   */
  trust?: boolean
  /** Start project MCP servers (commands the project chose); defaults to `trust === true`. */
  trustMcp?: boolean
  /** The home folder (tests pass a temporary one); defaults to the user's. */
  home?: string
  /** Environment for variable expansion in MCP configs and the shell; defaults to the process's. */
  env?: Record<string, string | undefined>
  /** Which user-level roots are read; defaults to all of them. */
  userRoots?: readonly UserRoot[]
  /** Byte budget for always-on instruction text; default 32 KiB. */
  instructionBudget?: number
  /** Time each MCP server gets to connect and list; default 10 s. */
  mcpTimeoutMs?: number
  /** False: list MCP servers without starting or connecting to any. Default true. */
  mcp?: boolean
  /**
   * Let `@path` imports read files anywhere. Default false: project files import only from the workspace,
   * user files from the workspace and home.
   */
  allowImportsOutside?: boolean
  /** Cap on folders walked below cwd when looking for nested instruction files. */
  walkLimit?: number
  /**
   * Keep a watch on the work tree from its third gather on, so a gather that finds nothing changed needs no
   * `git status` (Linux, local file systems; see WorkTreeWatch). Default true; false runs status every time.
   */
  watch?: boolean
  /** Replaces platform facts (tests fix them so output does not depend on the machine). */
  platform?: Partial<PlatformFacts>
}

/** The gathered context, everything worth telling the user as diagnostics, and a line per file considered. */
export interface GatherResult {
  context: PromptContext
  /** How to reach the MCP servers in `context.mcpServers` again (for an agent that calls their tools). */
  mcpConfigs: McpServerConfig[]
  diagnostics: Diagnostic[]
  report: GatherReport
}

/**
 * Reads the workspace once: platform, git, instruction files of every convention, skills and live MCP
 * servers. Returns a PromptContext that a build turns into a prompt without touching the disk again.
 */
export async function gather(options: GatherOptions): Promise<GatherResult> {
  const {
    cwd: givenCwd,
    date,
    trust,
    trustMcp = trust === true,
    home: givenHome,
    env = process.env,
    userRoots = USER_ROOTS,
    instructionBudget = DEFAULT_INSTRUCTION_BUDGET,
    mcpTimeoutMs,
    mcp = true,
    allowImportsOutside = false,
    walkLimit,
    watch = true,
    platform: platformOverride,
    ...passThrough
  } = options
  let cwd: string
  try {
    cwd = realpathSync.native(resolve(givenCwd))
    if (!statSync(cwd).isDirectory()) throw new Error("it is a file, not a folder")
  } catch (cause) {
    throw new FileError("gather-cwd", givenCwd, `cannot gather this folder: ${fsProblem(cause)}`, { cause })
  }
  // Git runs in processes of its own: started first, it answers while the files are read.
  const gitFacts = readGit(cwd, { watch })
  const home = realPath(resolve(givenHome ?? homedir())) ?? resolve(givenHome ?? homedir())
  // The repository root is found on disk so reading files need not wait for git's answers.
  const root = (await findRepositoryRoot(cwd)) ?? cwd
  const display = (abs: string, scope: "user" | "project") => displayPath(abs, cwd, home, scope)
  const dirs = new DirCache()
  // Most probes are for files and folders in these two that do not exist: their listings answer them.
  dirs.prefetch(root)
  dirs.prefetch(home)
  const links = new LinkGuard(root, home, env, dirs)
  const gitignore = new GitignoreRules(root, dirs, (abs) => display(abs, "project"), links)
  const roots = new Set(userRoots)
  const shared = { cwd, root, home, env, trust: trust !== false, userRoots: roots, dirs, gitignore, links, display }
  const [platform, git, instructions, skills, servers] = await Promise.all([
    readPlatform(env, home),
    gitFacts,
    collectInstructions({
      ...shared,
      budget: instructionBudget,
      imports: {
        home,
        workspace: root,
        allowOutside: allowImportsOutside,
        // A file outside both the workspace and home is named by its full path.
        display: (a) =>
          isInside(root, a) ? display(a, "project") : isInside(home, a) ? display(a, "user") : toPosix(a),
      },
      ...(walkLimit === undefined ? {} : { walkLimit }),
    }),
    collectSkills(shared),
    gatherMcp({
      ...shared,
      trust: trustMcp,
      connect: mcp,
      ...(mcpTimeoutMs === undefined ? {} : { timeoutMs: mcpTimeoutMs }),
    }),
  ])
  const context = parseContext({
    ...passThrough,
    version: PROMPT_CONTEXT_VERSION,
    cwd: toPosix(cwd),
    platform: { ...platform, ...platformOverride },
    date: date ?? localDate(),
    ...(git.git
      ? {
          git: {
            root: toPosix(git.git.root),
            status: git.git.status,
            ...(git.git.branch ? { branch: git.git.branch } : {}),
          },
        }
      : {}),
    instructions: instructions.files,
    skills: skills.skills,
    mcpServers: servers.servers,
  })
  const report = { instructions: instructions.entries, skills: skills.entries, mcpServers: servers.entries }
  return {
    context,
    diagnostics: [
      ...git.diagnostics,
      ...instructions.diagnostics,
      ...skills.diagnostics,
      ...servers.diagnostics,
      // What trust left out, with how to enable it (servers only when connecting was asked for at all).
      ...untrustedDiagnostics(report, LIBRARY_HINTS, { servers: mcp }),
    ],
    mcpConfigs: servers.configs,
    report,
  }
}
