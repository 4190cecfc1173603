/**
 * `promptline.config.json`: the user's and the project's settings (JSON with comments). The user file lives
 * in promptline's user folder; the project file is the nearest one in the working folder or above it (not
 * above the home folder). Project values win over the user's, except trust, which only the user file holds (a
 * project cannot vouch for itself), and where keys and prompts go (user-only.ts).
 */
import { readFile } from "node:fs/promises"
import { dirname, isAbsolute, join, resolve } from "node:path"
import type * as Jsonc from "jsonc-parser"
import type { ParseError } from "jsonc-parser"
import type * as Zod from "zod"
import { promptlineUserDir } from "../context/user-roots.js"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { FileError } from "../errors.js"
import { fieldPath } from "../field-issues.js"
import { describeSyntaxError } from "../json-syntax.js"
import { lazyModule, lazyValue } from "../lazy-module.js"
import { familyOf, providerOf, tokenizerOf } from "../models/resolve.js"
import type { ModelInfo } from "../models/types.js"
import { type GatewayConfig, gatewaySchema } from "./gateway.js"
import { keylessUpstreamIssues, routeOptionIssues } from "./gateway-routes.js"
import { applyUserOnly } from "./user-only.js"

/** zod's CommonJS build, the one the context and history schemas load on first use: one zod per process. */
const zod = lazyModule<typeof Zod>("zod")

/** jsonc-parser (CommonJS), required on first use: importing this module loads nothing. */
const jsonc = lazyModule<typeof Jsonc>("jsonc-parser")

/** The file name, in the user folder and in a project. */
export const CONFIG_FILE = "promptline.config.json"

/**
 * The file's schemas, built when the first config file is validated: zod is loaded then, so a command run
 * without a config file never loads it.
 */
function makeSchemas() {
  const { z } = zod()
  const price = z.number().nonnegative()

  /** A model row added by the user: limits are required, the rest is guessed from the id when absent. */
  const modelRow = z
    .object({
      id: z.string().min(1),
      aliases: z.array(z.string().min(1)).optional(),
      provider: z.string().min(1).optional(),
      family: z.string().min(1).optional(),
      contextWindow: z.number().int().positive(),
      maxOutput: z.number().int().positive(),
      maxInput: z.number().int().positive().optional(),
      tokenizer: z.enum(["o200k", "cl100k", "claude", "gemini", "estimate"]).optional(),
      local: z.boolean().optional(),
      capabilities: z
        .object({ nativeTools: z.boolean(), images: z.boolean(), thinking: z.boolean() })
        .partial()
        .optional(),
      prices: z
        .object({ input: price, output: price, cacheRead: price.optional(), cacheWrite: price.optional() })
        .optional(),
    })
    .strict()

  /** Where request traces go and how long they are kept (the gateway and `promptline run --trace`). */
  const tracesSection = z
    .object({
      /** The trace folder; relative paths are taken from the config file's folder. */
      dir: z.string().min(1).optional(),
      maxConversations: z.number().int().positive().optional(),
      maxBytes: z.number().int().positive().optional(),
      maxAgeDays: z.number().positive().optional(),
    })
    .strict()

  /** The file's schema. Unknown keys are errors, so a typo is named rather than ignored. */
  const configFile = z
    .object({
      $schema: z.string().optional(),
      /** The model when a command gets no `--model`. */
      model: z.string().min(1).optional(),
      /** Who serves the default model, when the id does not say. */
      provider: z.string().min(1).optional(),
      /** Extra catalog rows; they win over built-in rows with the same id or alias. */
      models: z.array(modelRow).optional(),
      /** User file only: folders (and everything below them) whose project MCP servers may start. */
      trustedFolders: z.array(z.string().min(1)).optional(),
      /** User file only: folders whose owner answered no when asked; they are not asked again. */
      declinedFolders: z.array(z.string().min(1)).optional(),
      /** Request traces: folder and retention. */
      traces: tracesSection.optional(),
      /** `promptline serve`: upstreams, routes and limits. */
      gateway: gatewaySchema.optional(),
    })
    .strict()
  return { modelRow, tracesSection, configFile }
}

const schemas = lazyValue(makeSchemas)

type Schemas = ReturnType<typeof makeSchemas>

/** The `traces` section in force. */
export type TracesConfig = Zod.infer<Schemas["tracesSection"]>

/** One config file as written. */
export type ConfigFileContent = Zod.infer<Schemas["configFile"]>

/** The settings in force: the user's file, then the project's over it. */
export interface PromptlineConfig {
  model?: string
  provider?: string
  /** Complete catalog rows, project rows first (so they win), each naming its file as its source. */
  models: ModelInfo[]
  trustedFolders: string[]
  declinedFolders: string[]
  /** Trace folder (absolute) and retention: the user's file only. */
  traces?: TracesConfig
  /** The gateway section: upstreams, routes, host, port and token from the user's file, limits from either. */
  gateway?: GatewayConfig
  /** The files the gateway section came from, user first. */
  gatewayFiles: string[]
  /** The file that decides who serves the default model: the one `provider` came from, else the one `model` came from. */
  providerFile?: string
  /** The files read, user first. */
  files: string[]
  /** Where the user file is (read or not), for messages and for recording trust answers. */
  userFile: string
}

/** Where to look for config files. */
export interface ConfigLocation {
  cwd: string
  home: string
  env: Record<string, string | undefined>
}

/** The line of a JSON path in the text, for error messages. */
function lineOf(text: string, path: (string | number)[]): number | undefined {
  const root = jsonc().parseTree(text)
  if (!root) return undefined
  let node = jsonc().findNodeAtLocation(root, path)
  for (let p = path.slice(0, -1); !node && p.length >= 0; p = p.slice(0, -1)) {
    node = jsonc().findNodeAtLocation(root, p)
    if (p.length === 0) break
  }
  return node ? text.slice(0, node.offset).split("\n").length : undefined
}

/** The field names of the object schema at `path` inside `schema` (through optionals, arrays and records). */
function fieldsAt(schema: Zod.ZodType, path: readonly (string | number)[]): string[] {
  const { z } = zod()
  let node: Zod.ZodType = schema
  for (let i = 0; ; ) {
    if (node instanceof z.ZodOptional || node instanceof z.ZodDefault) node = node.unwrap() as Zod.ZodType
    else if (node instanceof z.ZodArray || node instanceof z.ZodRecord) {
      node = (node instanceof z.ZodArray ? node.element : node.valueType) as Zod.ZodType
      i++
    } else if (node instanceof z.ZodObject && i < path.length) {
      const next = node.shape[String(path[i])] as Zod.ZodType | undefined
      if (!next) return Object.keys(node.shape)
      node = next
      i++
    } else return node instanceof z.ZodObject ? Object.keys(node.shape) : []
  }
}

/** Parses and validates one config file's text; errors name the file, the line and the field. */
export function parseConfig(text: string, file: string): ConfigFileContent {
  const errors: ParseError[] = []
  const root = jsonc().parseTree(text, errors, { allowTrailingComma: true, disallowComments: false })
  const first = errors[0]
  if (first || !root) {
    const problem = first ? describeSyntaxError(text, first) : { message: "the file is empty", line: 1, column: 1 }
    const { message, line, column } = problem
    throw new FileError("config-invalid", file, `not valid JSON with comments: ${message}`, { line, column })
  }
  const { configFile } = schemas()
  const parsed = configFile.safeParse(jsonc().parse(text, [], { allowTrailingComma: true }))
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]!
  const path = issue.path.filter((p): p is string | number => typeof p !== "symbol")
  const unknown = issue.code === "unrecognized_keys" ? issue.keys : []
  const field = [...path, ...unknown.slice(0, 1)]
  const where = field.length > 0 ? `field "${fieldPath(field)}"` : "the file"
  const line = lineOf(text, field)
  const what =
    unknown.length > 0 ? `unknown field (the fields are: ${fieldsAt(configFile, path).join(", ")})` : issue.message
  throw new FileError("config-invalid", file, `${where}: ${what}`, line ? { line } : {})
}

/**
 * What a valid config file asks that cannot happen as written, as diagnostics naming the file and line: a gateway
 * route's option its mode leaves unused, and a gateway that takes a token but leaves a remote upstream without a key
 * (gateway-routes.ts).
 */
export function configDiagnostics(content: ConfigFileContent, text: string, file: string): Diagnostic[] {
  if (!content.gateway) return []
  const at = (field: (string | number)[]) => {
    const line = lineOf(text, field)
    return { path: file, ...(line ? { line } : {}) }
  }
  return [
    ...routeOptionIssues(content.gateway).map((issue) =>
      diagnostic(
        issue.level,
        "config-route-option-unused",
        issue.message,
        at(["gateway", "routes", issue.route, issue.option]),
      ),
    ),
    ...keylessUpstreamIssues(content.gateway).map((issue) =>
      diagnostic("warning", "config-upstream-keyless", issue.message, at(issue.field)),
    ),
  ]
}

/** A user row completed into a catalog row: family, tokenizer and provider guessed from the id when absent. */
function completeRow(row: Zod.infer<Schemas["modelRow"]>, file: string): ModelInfo {
  const local = row.local ?? false
  const out: ModelInfo = {
    id: row.id,
    provider: row.provider ?? providerOf(row.id) ?? "openai-compatible",
    family: row.family ?? familyOf(row.id),
    contextWindow: row.contextWindow,
    maxOutput: row.maxOutput,
    tokenizer: row.tokenizer ?? tokenizerOf(row.id),
    capabilities: { nativeTools: !local, images: false, thinking: false, ...row.capabilities },
    source: `config: ${file}`,
  }
  if (row.aliases) out.aliases = row.aliases
  if (row.maxInput) out.maxInput = row.maxInput
  if (local) out.local = true
  if (row.prices) out.prices = row.prices
  return out
}

/** The model rows of one config file, completed into catalog rows naming the file as their source. */
export function completeModelRows(rows: readonly Zod.infer<Schemas["modelRow"]>[], file: string): ModelInfo[] {
  return rows.map((row) => completeRow(row, file))
}

/** Reads one file and its text; a missing file is undefined, anything else wrong is a FileError naming it. */
async function readConfigFile(file: string): Promise<{ content: ConfigFileContent; text: string } | undefined> {
  let text: string
  try {
    text = await readFile(file, "utf8")
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ENOENT" || code === "ENOTDIR") return undefined
    throw new FileError("config-unreadable", file, `cannot read the config file (${code ?? error})`, { cause: error })
  }
  return { content: parseConfig(text, file), text }
}

/** The nearest project config: in `cwd` or a folder above it, stopping below the home folder. */
async function findProjectConfig(cwd: string, home: string): Promise<string | undefined> {
  const stop = resolve(home)
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (dir === stop) return undefined
    const file = join(dir, CONFIG_FILE)
    try {
      await readFile(file)
      return file
    } catch {
      // not here: look one folder up
    }
    if (dirname(dir) === dir) return undefined
  }
}

/** The user's config file path. */
export function userConfigFile(home: string, env: Record<string, string | undefined>): string {
  return join(promptlineUserDir(home, env), CONFIG_FILE)
}

/**
 * Loads the settings in force for a folder. Trust entries in a project file are ignored with a warning, and so
 * are the fields that decide where keys and prompts go (user-only.ts); a relative trusted folder in the user
 * file is refused with a warning (it would depend on where you stand).
 */
export async function loadConfig(at: ConfigLocation): Promise<{ config: PromptlineConfig; diagnostics: Diagnostic[] }> {
  const userFile = userConfigFile(at.home, at.env)
  const projectFile = await findProjectConfig(at.cwd, at.home)
  const userRead = await readConfigFile(userFile)
  const projectRead = projectFile && projectFile !== userFile ? await readConfigFile(projectFile) : undefined
  const user = userRead?.content
  const project = projectRead?.content
  // Routes come from the user's file only (user-only.ts): its routes are the ones checked.
  const diagnostics: Diagnostic[] = userRead ? configDiagnostics(userRead.content, userRead.text, userFile) : []
  const files = [...(user ? [userFile] : []), ...(project && projectFile ? [projectFile] : [])]
  if (project && projectFile)
    for (const key of ["trustedFolders", "declinedFolders"] as const)
      if (project[key])
        diagnostics.push(
          diagnostic(
            "warning",
            "config-trust-ignored",
            `"${key}" is read from the user config only (${userFile}); a project cannot trust itself`,
            { path: projectFile },
          ),
        )
  const absolute = (list: string[] | undefined, key: string) =>
    (list ?? [])
      .filter((folder) => {
        if (isAbsolute(folder)) return true
        diagnostics.push(
          diagnostic(
            "warning",
            "config-folder-relative",
            `"${key}" entry "${folder}" is not an absolute path; it is ignored`,
            { path: userFile },
          ),
        )
        return false
      })
      .map((folder) => resolve(folder))
  const config: PromptlineConfig = {
    models: [
      ...(project?.models ?? []).map((row) => completeRow(row, projectFile!)),
      ...(user?.models ?? []).map((row) => completeRow(row, userFile)),
    ],
    trustedFolders: absolute(user?.trustedFolders, "trustedFolders"),
    declinedFolders: absolute(user?.declinedFolders, "declinedFolders"),
    files,
    userFile,
    gatewayFiles: [],
  }
  const split = applyUserOnly({ user, userFile, project, projectFile })
  diagnostics.push(...split.diagnostics)
  config.gatewayFiles = split.gatewayFiles
  if (split.gateway) config.gateway = split.gateway
  if (split.traces) config.traces = split.traces
  const model = project?.model ?? user?.model
  if (model) config.model = model
  const provider = project?.model ? project.provider : (project?.provider ?? user?.provider)
  if (provider) config.provider = provider
  const fileOf = (key: "model" | "provider") => (project?.[key] ? projectFile : user?.[key] ? userFile : undefined)
  const providerFile = provider ? fileOf("provider") : model ? fileOf("model") : undefined
  if (providerFile) config.providerFile = providerFile
  return { config, diagnostics }
}
