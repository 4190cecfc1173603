/**
 * The settings a project's `promptline.config.json` may not make: where keys and prompts go and who may connect
 * to the gateway. A repository (or a file planted in a folder above it, such as `/tmp`) must not be able to
 * send the user's keys and prompts somewhere else, open the gateway to the network, or choose where request
 * bodies are written. These come from the user's own file, or from a file given with `--config`; a project
 * file that sets them gets one warning naming the file and each field it set.
 */
import { dirname, resolve } from "node:path"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import type { GatewayConfig } from "./gateway.js"

/**
 * Gateway fields read from the user's file only: `upstreams` (provider, base URL, key variable) and `routes`
 * (which upstream a model goes to) decide where keys and prompts go; `host` and `tokenEnv` decide who may
 * connect; `port` is where the user's clients send their own keys; `store` is where conversation state (cut
 * positions, summaries) and usage go, and its URL may hold a password. The limits (body size, timeouts, grace)
 * change none of that, so a project may set them.
 */
export const USER_ONLY_GATEWAY_FIELDS = ["host", "port", "tokenEnv", "upstreams", "routes", "store"] as const

/** The `traces` section as written (folder and retention). */
export interface TracesSection {
  dir?: string | undefined
  maxConversations?: number | undefined
  maxBytes?: number | undefined
  maxAgeDays?: number | undefined
}

/** What the user-only rules take from the two files. */
export interface UserOnlyInput {
  user?: { gateway?: GatewayConfig | undefined; traces?: TracesSection | undefined } | undefined
  userFile: string
  project?: { gateway?: GatewayConfig | undefined; traces?: TracesSection | undefined } | undefined
  projectFile?: string | undefined
}

/** The gateway and traces sections in force, and the warning for what a project file set but may not. */
export interface UserOnlyResult {
  gateway?: GatewayConfig
  /** The files the gateway section came from, user first. */
  gatewayFiles: string[]
  traces?: TracesSection
  diagnostics: Diagnostic[]
}

/** The traces section of a file with its folder resolved from the file's folder. */
export function resolvedTraces(section: TracesSection | undefined, file: string): TracesSection | undefined {
  return section?.dir ? { ...section, dir: resolve(dirname(file), section.dir) } : section
}

/**
 * Splits the gateway and traces sections between the two files: the user's file decides every field that says
 * where keys and prompts go or who may connect, and the whole `traces` section (the folder bodies are written
 * to, and the retention that deletes files in it); a project may set the gateway's limits, over the user's.
 */
export function applyUserOnly(input: UserOnlyInput): UserOnlyResult {
  const { user, project, userFile, projectFile } = input
  const ignored: string[] = []
  const userOnly = new Set<string>(USER_ONLY_GATEWAY_FIELDS)
  let gateway: GatewayConfig | undefined = user?.gateway ? { ...user.gateway } : undefined
  const gatewayFiles = user?.gateway ? [userFile] : []
  if (project?.gateway && projectFile) {
    const allowed: Record<string, unknown> = {}
    for (const [field, value] of Object.entries(project.gateway)) {
      if (value === undefined) continue
      if (userOnly.has(field)) ignored.push(`gateway.${field}`)
      else allowed[field] = value
    }
    if (Object.keys(allowed).length > 0) {
      gateway = { ...gateway, ...allowed } as GatewayConfig
      gatewayFiles.push(projectFile)
    }
  }
  if (project?.traces && projectFile)
    for (const [field, value] of Object.entries(project.traces))
      if (value !== undefined) ignored.push(`traces.${field}`)
  const diagnostics =
    ignored.length > 0 && projectFile
      ? [
          diagnostic(
            "warning",
            "config-user-only",
            `${ignored.map((f) => `"${f}"`).join(", ")} ignored: where keys, prompts and conversation state go, who may connect and where traces are written are read from the user config only (${userFile}) or a file given with --config`,
            { path: projectFile },
          ),
        ]
      : []
  const traces = resolvedTraces(user?.traces, userFile)
  return { ...(gateway ? { gateway } : {}), gatewayFiles, ...(traces ? { traces } : {}), diagnostics }
}
