/**
 * Whether a workspace may start its own MCP servers (they are commands the project chose): the user's
 * config lists trusted and declined folders, and an answer given at the terminal is recorded there.
 */
import { mkdir, readFile } from "node:fs/promises"
import { dirname, resolve } from "node:path"
import type * as Jsonc from "jsonc-parser"
import { writeFileAtomic } from "../atomic-write.js"
import { isInside } from "../context/paths.js"
import { lazyModule } from "../lazy-module.js"
import type { PromptlineConfig } from "./config.js"

/** jsonc-parser (CommonJS), required on first use: importing this module loads nothing. */
const jsonc = lazyModule<typeof Jsonc>("jsonc-parser")

/** What the user's config says about a workspace. */
export type TrustState =
  | { state: "trusted"; folder: string }
  | { state: "declined"; folder: string }
  | { state: "unknown" }

/** Whether `folder` is `parent` or lies below it. */
const within = (folder: string, parent: string): boolean => isInside(parent, folder)

/** The trust the user's config gives a workspace: a trusted folder (or one above it) wins over a declined one. */
export function trustOf(
  config: Pick<PromptlineConfig, "trustedFolders" | "declinedFolders">,
  workspace: string,
): TrustState {
  const ws = resolve(workspace)
  const trusted = config.trustedFolders.find((f) => within(ws, f))
  if (trusted) return { state: "trusted", folder: trusted }
  const declined = config.declinedFolders.find((f) => within(ws, f))
  if (declined) return { state: "declined", folder: declined }
  return { state: "unknown" }
}

/**
 * Records an answer for `workspace` in the user's config file, keeping its comments and formatting; the
 * file is created when missing and replaced atomically.
 */
export async function rememberTrust(userFile: string, workspace: string, trusted: boolean): Promise<void> {
  let text = "{}\n"
  try {
    text = await readFile(userFile, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
  }
  const key = trusted ? "trustedFolders" : "declinedFolders"
  const current = (jsonc().parse(text, [], { allowTrailingComma: true }) as Record<string, unknown> | undefined)?.[key]
  const list = Array.isArray(current) ? current : []
  const folder = resolve(workspace)
  if (list.includes(folder)) return
  const edits = jsonc().modify(text, [key, list.length], folder, {
    isArrayInsertion: true,
    formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" },
  })
  await mkdir(dirname(userFile), { recursive: true })
  await writeFileAtomic(userFile, jsonc().applyEdits(text, edits))
}
