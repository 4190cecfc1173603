import { type BigIntStats, closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync } from "node:fs"
import { ReadCache, settled, versionOf } from "./read-cache.js"

/** Files larger than this are cut (at a line end) when read: 1 MiB. */
export const MAX_FILE_BYTES = 1024 * 1024

/** Why a file could not be read as text. */
export type ReadFailure = "binary" | "unreadable" | "vanished" | "broken-symlink" | "symlink-loop" | "not-a-file"

/** The outcome of reading one file as text: the text, or why not. Never throws. */
export type ReadOutcome =
  | {
      ok: true
      /** Decoded text: BOM dropped, CRLF turned into LF. */
      text: string
      /** Size of the file on disk, in bytes. */
      size: number
      /** True when the file was larger than the cap and only its head was kept. */
      capped: boolean
      /** True when bytes were not valid UTF-8 and became U+FFFD. */
      invalidUtf8: boolean
    }
  | { ok: false; failure: ReadFailure; message: string }

function fail(failure: ReadFailure, message: string): ReadOutcome {
  return { ok: false, failure, message }
}

function classifyMissing(abs: string): ReadOutcome {
  try {
    const link = lstatSync(abs)
    if (link.isSymbolicLink()) return fail("broken-symlink", "the symbolic link points to nothing")
  } catch {
    // gone entirely
  }
  return fail("vanished", "the file disappeared while it was being read")
}

function openError(abs: string, error: NodeJS.ErrnoException): ReadOutcome {
  switch (error.code) {
    case "ENOENT":
      return classifyMissing(abs)
    case "ELOOP":
      return fail("symlink-loop", "symbolic links form a loop")
    case "EISDIR":
      return fail("not-a-file", "it is a directory, not a file")
    case "EACCES":
    case "EPERM":
      return fail("unreadable", "permission denied")
    default:
      return fail("unreadable", error.message)
  }
}

/** The largest offset ≤ `end` that does not split a UTF-8 sequence. */
export function utf8Boundary(bytes: Uint8Array, end: number): number {
  let cut = Math.min(end, bytes.length)
  while (cut > 0 && cut < bytes.length && (bytes[cut]! & 0xc0) === 0x80) cut--
  return cut
}

type ReadText = Extract<ReadOutcome, { ok: true }>

/** Texts read before in this process: a file whose version is unchanged is not read again. */
const readBefore = new ReadCache<ReadText>()

/**
 * Reads a file as UTF-8 text, capped at `maxBytes`; bad input becomes a failure, never an exception. A file
 * read before in this process, with the same device, inode, size and change times since, is not read again.
 * The calls are synchronous: instruction, config and skill files are small, and five file-system calls through
 * the thread pool and promises cost the main thread several times what the calls themselves cost.
 */
export async function readTextFile(abs: string, maxBytes = MAX_FILE_BYTES): Promise<ReadOutcome> {
  return readTextFileSync(abs, maxBytes)
}

/** `readTextFile` for a caller that must answer at once. */
export function readTextFileSync(abs: string, maxBytes = MAX_FILE_BYTES): ReadOutcome {
  let info: BigIntStats
  try {
    info = statSync(abs, { bigint: true })
    if (!info.isFile()) return fail("not-a-file", "it is not a regular file")
  } catch (error) {
    return openError(abs, error as NodeJS.ErrnoException)
  }
  const size = Number(info.size)
  const key = `${maxBytes}:${abs}`
  const version = versionOf(info)
  const known = readBefore.get(key, version)
  if (known) return { ...known }
  let fd: number
  try {
    // Non-blocking open: a file replaced by a FIFO between stat and open must not hang the read.
    fd = openSync(abs, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    return openError(abs, error as NodeJS.ErrnoException)
  }
  let bytes: Buffer
  let after: BigIntStats | undefined
  try {
    const buffer = Buffer.alloc(Math.min(size, maxBytes) + 1)
    let filled = 0
    while (filled < buffer.length) {
      const bytesRead = readSync(fd, buffer, filled, buffer.length - filled, filled)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    bytes = buffer.subarray(0, filled)
    try {
      after = fstatSync(fd, { bigint: true })
    } catch {
      after = undefined
    }
  } catch (error) {
    return openError(abs, error as NodeJS.ErrnoException)
  } finally {
    try {
      closeSync(fd)
    } catch {}
  }
  if (bytes.includes(0)) return fail("binary", "it contains NUL bytes (a binary file)")
  let capped = false
  if (bytes.length > maxBytes) {
    capped = true
    const head = bytes.subarray(0, maxBytes)
    const lastLine = head.lastIndexOf(0x0a)
    bytes = lastLine >= 0 ? head.subarray(0, lastLine + 1) : head.subarray(0, utf8Boundary(bytes, maxBytes))
  }
  let text: string
  let invalidUtf8 = false
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    invalidUtf8 = true
    text = new TextDecoder("utf-8").decode(bytes)
  }
  const read: ReadText = {
    ok: true,
    text: text.replace(/\r\n/g, "\n"),
    size: Math.max(size, bytes.length),
    capped,
    invalidUtf8,
  }
  if (after && settled(info, after)) readBefore.set(key, version, { ...read }, read.text.length)
  return read
}
