import { basename } from "node:path"

/** Values that `${...}` references in MCP configs resolve to. */
export interface ExpandVars {
  env: Record<string, string | undefined>
  home: string
  /** The project folder (`${workspaceFolder}` in Cursor configs). */
  workspace: string
}

/**
 * Expands the variable forms MCP configs use: `${VAR}` and `${VAR:-default}` (Claude Code), `${env:VAR}`,
 * `${userHome}`, `${workspaceFolder}` and `${workspaceFolderBasename}` (Cursor). Reports unset variables.
 */
export function expandVars(value: string, vars: ExpandVars): { value: string; missing: string[] } {
  const missing: string[] = []
  const out = value.replace(/\$\{([^}]+)\}/g, (whole, inner: string) => {
    if (inner === "userHome") return vars.home
    if (inner === "workspaceFolder") return vars.workspace
    if (inner === "workspaceFolderBasename") return basename(vars.workspace)
    const m = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s.exec(inner)
    if (!m) return whole
    const name = m[1]!
    const set = vars.env[name]
    if (set !== undefined) return set
    if (m[2] !== undefined) return m[2]
    missing.push(name)
    return ""
  })
  return { value: out, missing }
}
