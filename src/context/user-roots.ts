import { isAbsolute, join } from "node:path"

/** A family of user-level files (instructions, skills, MCP config) that can be switched on or off. */
export type UserRoot = "promptline" | "claude" | "codex" | "gemini" | "cline" | "cursor"

/** Every user root, in the order their files are read. */
export const USER_ROOTS: readonly UserRoot[] = ["promptline", "claude", "codex", "gemini", "cline", "cursor"]

/** promptline's own user folder: `$XDG_CONFIG_HOME/promptline`, else `~/.config/promptline`. */
export function promptlineUserDir(home: string, env: Record<string, string | undefined>): string {
  const xdg = env.XDG_CONFIG_HOME
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, ".config"), "promptline")
}
