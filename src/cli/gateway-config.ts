// What `promptline serve` and `promptline launch` start a gateway with: the config in effect and the trace store.
import { readFile } from "node:fs/promises"
import { isAbsolute, resolve } from "node:path"
import { completeModelRows, configDiagnostics, loadConfig, parseConfig, type TracesConfig } from "../config/config.js"
import type { GatewayConfig } from "../config/gateway.js"
import { resolvedTraces } from "../config/user-only.js"
import type { Diagnostic } from "../diagnostics.js"
import { FileError } from "../errors.js"
import { type GatewayTracing, gatewayTracing } from "../gateway/traces.js"
import type { ModelInfo } from "../models/types.js"
import { homeOf } from "./context-options.js"
import type { CliIO } from "./io.js"

/** The settings a gateway runs with, the config files they came from, and the warnings about them. */
export interface GatewayRunConfig {
  gateway?: GatewayConfig
  models: ModelInfo[]
  traces?: TracesConfig
  /** Each file in effect with what it is (`--config`, `user`, `project`). */
  files: { file: string; role: string }[]
  diagnostics: Diagnostic[]
}

/**
 * The settings: the file given with `--config` alone (the user named it), else the user's file and the project's,
 * where a project may set the gateway's limits and model rows but not where keys and prompts go (config/user-only.ts).
 */
export async function gatewayRunConfig(configFlag: string | undefined, io: CliIO): Promise<GatewayRunConfig> {
  if (configFlag !== undefined) {
    const file = isAbsolute(configFlag) ? configFlag : resolve(io.cwd, configFlag)
    let text: string
    try {
      text = await readFile(file, "utf8")
    } catch (error) {
      throw new FileError(
        "config-unreadable",
        file,
        `cannot read the config file (${(error as NodeJS.ErrnoException).code ?? error})`,
      )
    }
    const content = parseConfig(text, file)
    const traces = resolvedTraces(content.traces, file)
    return {
      ...(content.gateway ? { gateway: content.gateway } : {}),
      models: completeModelRows(content.models ?? [], file),
      ...(traces ? { traces } : {}),
      files: [{ file, role: "--config" }],
      diagnostics: configDiagnostics(content, text, file),
    }
  }
  const { config, diagnostics } = await loadConfig({ cwd: io.cwd, home: homeOf(io), env: io.env })
  return {
    ...(config.gateway ? { gateway: config.gateway } : {}),
    models: config.models,
    ...(config.traces ? { traces: config.traces } : {}),
    files: config.files.map((file) => ({ file, role: file === config.userFile ? "user" : "project" })),
    diagnostics,
  }
}

/**
 * The gateway hooks that record every request in a trace folder (with the config's retention); a trace that cannot
 * be written goes to `warn` once.
 */
export async function traceHooks(
  dir: string,
  run: Pick<GatewayRunConfig, "models" | "traces">,
  warn: (line: string) => void,
): Promise<GatewayTracing> {
  const [{ TraceStore }, { TokenCounter }] = await Promise.all([
    import("../cache/trace-store.js"),
    import("../history/tokens.js"),
  ])
  const { dir: _, ...retention } = run.traces ?? {}
  const store = new TraceStore(dir, { counter: await TokenCounter.create(), models: run.models, retention })
  let warned = false
  return gatewayTracing(store, (error) => {
    if (warned) return
    warned = true
    warn(`warning cannot write the trace in ${dir}: ${error.message} [trace-unwritable]`)
  })
}
