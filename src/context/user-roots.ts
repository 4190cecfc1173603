import { createHash } from "node:crypto"
import { basename, dirname, isAbsolute, join } from "node:path"

/** A family of user-level files (instructions, skills, MCP config) that can be switched on or off. */
export type UserRoot = "promptline" | "claude" | "codex" | "gemini" | "cline" | "cursor"

/** Every user root, in the order their files are read. */
export const USER_ROOTS: readonly UserRoot[] = ["promptline", "claude", "codex", "gemini", "cline", "cursor"]

/** promptline's own user folder: `$XDG_CONFIG_HOME/promptline`, else `~/.config/promptline`. */
export function promptlineUserDir(home: string, env: Record<string, string | undefined>): string {
  const xdg = env.XDG_CONFIG_HOME
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, ".config"), "promptline")
}

/**
 * The user's own config folders, which user-level files (instructions, skills, MCP configs) may lead into
 * through symbolic links: every root's folder, whether or not it is switched on.
 */
export function userConfigFolders(home: string, env: Record<string, string | undefined>): string[] {
  const storage = join("User", "globalStorage", "saoudrizwan.claude-dev")
  const out = [
    promptlineUserDir(home, env),
    join(home, ".claude"),
    join(home, ".codex"),
    join(home, ".agents"),
    join(home, ".gemini"),
    join(home, ".cline"),
    join(home, ".cursor"),
    join(home, "Documents", "Cline"),
    join(home, ".config", "Code", storage),
    join(home, "Library", "Application Support", "Code", storage),
  ]
  const cline = env.CLINE_MCP_SETTINGS_PATH
  if (cline && isAbsolute(cline)) out.push(dirname(cline))
  return out
}

/**
 * promptline's cache folder for state that is not the user's work (the last inspect run, trust answers are
 * config, not cache): `$XDG_CACHE_HOME/promptline`, else `~/Library/Caches/promptline` on macOS,
 * `%LOCALAPPDATA%\promptline\Cache` on Windows and `~/.cache/promptline` elsewhere.
 */
export function promptlineCacheDir(
  home: string,
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): string {
  const xdg = env.XDG_CACHE_HOME
  if (xdg && isAbsolute(xdg)) return join(xdg, "promptline")
  if (platform === "darwin") return join(home, "Library", "Caches", "promptline")
  if (platform === "win32" && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, "promptline", "Cache")
  return join(home, ".cache", "promptline")
}

/**
 * promptline's state folder, for what it keeps between runs that is neither config nor cache (sessions of
 * `promptline run`): `$XDG_STATE_HOME/promptline`, else `~/Library/Application Support/promptline` on macOS,
 * `%LOCALAPPDATA%\\promptline\\State` on Windows and `~/.local/state/promptline` elsewhere.
 */
export function promptlineStateDir(
  home: string,
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): string {
  const xdg = env.XDG_STATE_HOME
  if (xdg && isAbsolute(xdg)) return join(xdg, "promptline")
  if (platform === "darwin") return join(home, "Library", "Application Support", "promptline")
  if (platform === "win32" && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, "promptline", "State")
  return join(home, ".local", "state", "promptline")
}

/**
 * A stable, readable name for a workspace in promptline's own folders: the folder's name (characters other
 * than letters, digits, `.`, `_` and `-` replaced) and 16 hex digits of the sha256 of its path, e.g.
 * `shop-3f2a…`. The same path always gives the same name; two folders of one name get two.
 */
export function workspaceKey(workspace: string): string {
  const hash = createHash("sha256").update(workspace).digest("hex").slice(0, 16)
  const name = basename(workspace).replace(/[^A-Za-z0-9._-]/g, "_") || "root"
  return `${name}-${hash}`
}
