/** What gather did with one file or server it considered. */
export type EntryStatus =
  /** Instruction text is in the context and applies always; a skill is listed; a server answered. */
  | "loaded"
  /** A rule that applies once a matching path is touched (see `globs`). */
  | "conditional"
  /** A rule listed by its description, loaded when the agent asks for it. */
  | "requested"
  /** A rule that applies only when the user names it. */
  | "manual"
  /** An instruction file in a folder below cwd, attached when the agent works there. */
  | "nested"
  /** Loaded, but the instruction budget cut its text. */
  | "truncated"
  /** Not used, by a rule: untrusted workspace, replaced by an override, a disabled server, bad fields. */
  | "skipped"
  /** Matched by .gitignore. */
  | "ignored"
  /** A skill hidden from the model (`disable-model-invocation`). */
  | "hidden"
  /** A second skill or server with a name already taken. */
  | "shadowed"
  /** Could not be read or reached: binary, unreadable, vanished, symlink loop, connection error, timeout. */
  | "failed"

/** One line of the gather report: a file or server considered, its status and why. */
export interface GatherEntry {
  kind: "instruction" | "skill" | "mcp-server"
  /** Display path (relative to cwd or `~/...`); for servers, the server name. */
  path: string
  scope: "user" | "project"
  status: EntryStatus
  /** The convention (instructions), the config format (servers). */
  convention?: string
  /** Why the status, in words. */
  reason?: string
  /** Globs of a conditional rule. */
  globs?: string[]
  /** A short summary: size, tool counts, the config file a server came from. */
  detail?: string
}

/** Every file and server gather considered, grouped by kind, each group in a stable order. */
export interface GatherReport {
  instructions: GatherEntry[]
  skills: GatherEntry[]
  mcpServers: GatherEntry[]
}
