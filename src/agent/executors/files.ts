import type { Stats } from "node:fs"
import { open, stat } from "node:fs/promises"
import * as atomic from "../../atomic-write.js"
import { type AllowedPath, resolvePath } from "../workspace.js"
import { failure } from "./outcome.js"
import type { ResolvedEnv, ToolOutcome } from "./types.js"
import { isPrivatePath, privateRefusal } from "./walk.js"

/** Resolves a tool's path argument under the env's path policy. */
export function resolveIn(env: ResolvedEnv, input: string, access: "read" | "write") {
  return resolvePath(
    { root: env.workspace, allowedRoots: env.allowedRoots, readRoots: env.readRoots, home: env.home },
    input,
    access,
  )
}

export { commitFile } from "../../atomic-write.js"

/** A tool's path that passed the policy, and what is there. */
export interface ToolPath {
  ok: true
  where: AllowedPath
  /** How the path is shown to the model and the user. */
  shown: string
  /** What is there (symbolic links followed); undefined when nothing is. */
  info: Stats | undefined
  /** What is there when it is not a regular file, in words (`notAFile`): "a folder", "a named pipe (FIFO)", ... */
  kind: string | undefined
}

/**
 * The path checks every file tool makes, in one place: the path policy (`resolveIn`), the agent's private folders
 * when the tool lists or searches (`private: "refuse"`), then a look at what is there. A refusal comes back as the
 * tool's failure, summarized as `refused to <verb> <path>`; what the tool needs to find there is its own check.
 */
export async function toolPath(
  env: ResolvedEnv,
  input: string,
  options: { access: "read" | "write"; verb: string; private?: "refuse" },
): Promise<ToolPath | { ok: false; reason: string; outcome: ToolOutcome }> {
  const refuse = (reason: string, summary: string) => ({
    ok: false as const,
    reason,
    outcome: failure(reason, summary),
  })
  const where = await resolveIn(env, input, options.access)
  if (!where.ok) return refuse(where.reason, `refused to ${options.verb} ${input}`)
  const shown = where.display
  if (options.private && (isPrivatePath(env.workspace, where.real) || isPrivatePath(env.workspace, where.absolute)))
    return refuse(privateRefusal(shown), `refused to ${options.verb} ${shown}: private`)
  const info = await stat(where.real).catch(() => undefined)
  return { ok: true, where, shown, info, kind: info && notAFile(info) }
}

/**
 * What a path that is not a regular file is, in words ("a folder", "a named pipe (FIFO)", ...), or undefined for
 * a regular file. The tools that write refuse such a path: an atomic write would replace a FIFO, a socket or a
 * device with a regular file (and a read of a FIFO would hang).
 */
export function notAFile(info: Stats): string | undefined {
  if (info.isFile()) return undefined
  if (info.isDirectory()) return "a folder"
  if (info.isFIFO()) return "a named pipe (FIFO)"
  if (info.isSocket()) return "a socket"
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device"
  return "not a regular file"
}

/** Refuses to write over anything but a regular file (a missing file is fine): see `notAFile`. */
async function refuseSpecial(target: string): Promise<void> {
  const info = await stat(target).catch(() => undefined)
  const kind = info && notAFile(info)
  if (kind) throw new Error(`${target} is ${kind}, not a regular file; only regular files are written`)
}

/** Stages a file for an atomic write, creating its folders: the tools write where the model asks. */
export async function stageFile(target: string, data: string | Uint8Array): Promise<string> {
  await refuseSpecial(target)
  return atomic.stageFile(target, data, { createFolders: true })
}

/** Writes a file atomically, creating its folders; a folder, FIFO, socket or device in its place is refused. */
export async function writeFileAtomic(target: string, data: string | Uint8Array): Promise<void> {
  await refuseSpecial(target)
  await atomic.writeFileAtomic(target, data, { createFolders: true })
}

export type { AllowedPath }

/** Reads up to `bytes` bytes from the start of a file. */
export async function readHead(file: string, bytes: number): Promise<Buffer> {
  const handle = await open(file, "r")
  try {
    const buffer = Buffer.alloc(bytes)
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0)
    return buffer.subarray(0, bytesRead)
  } finally {
    await handle.close()
  }
}

/**
 * Whether bytes look binary: any NUL byte, or more than 10% of the decoded characters invalid UTF-8.
 * A multi-byte character cut at the end of the sample is not counted against it.
 */
export function looksBinary(sample: Uint8Array): boolean {
  if (sample.length === 0) return false
  if (sample.includes(0)) return true
  let end = sample.length
  // Drop a possibly cut multi-byte sequence at the end (at most 3 continuation/lead bytes).
  for (let i = sample.length - 1; i >= Math.max(0, sample.length - 4); i--) {
    const byte = sample[i]!
    if (byte < 0x80) break
    if (byte >= 0xc0) {
      end = i
      break
    }
  }
  const text = new TextDecoder("utf-8", { fatal: false }).decode(sample.subarray(0, end))
  let bad = 0
  for (const ch of text) if (ch === "\uFFFD") bad++
  return bad > 0 && bad / Math.max(1, text.length) > 0.1
}

/** Image types read_file returns as image blocks, by extension. */
export const IMAGE_TYPES: Readonly<Record<string, string>> = Object.freeze({
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
})

/** Splits text into lines; a final newline does not start an extra line. CRLF counts as one break. */
export function splitLines(text: string): string[] {
  if (text === "") return []
  const lines = text.split(/\r?\n/)
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

/** The number of lines of a text, as an editor would show them. */
export function lineCount(text: string): number {
  return splitLines(text).length
}

/** Whether a text uses CRLF line breaks (the majority of its breaks). */
export function usesCrlf(text: string): boolean {
  const crlf = text.split("\r\n").length - 1
  const lf = text.split("\n").length - 1
  return crlf > 0 && crlf * 2 >= lf
}
