import { randomBytes } from "node:crypto"
import { realpathSync } from "node:fs"
import { cp, lstat, mkdir, open, readdir, readFile, rename, rm, rmdir, truncate } from "node:fs/promises"
import { homedir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { z } from "zod"
import { removeStaleTemps, writeFileAtomic } from "../atomic-write.js"
import { promptlineStateDir, workspaceKey } from "../context/user-roots.js"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { PromptlineError } from "../errors.js"
import { fieldIssues, issuesLine, issueText } from "../field-issues.js"
import type { ChangeLog } from "../history/change-log.js"
import { loadChangeLogFor } from "../history/change-log-check.js"
import { repairPairs } from "../history/edits.js"
import { parseSeenFiles, type SeenFile } from "../history/file-tracker.js"
import { messageSchema } from "../history/history-file.js"
import type { Message } from "../history/message.js"
import { parseJsonDocument } from "../json.js"
import type { AgentEvent } from "./events.js"

/**
 * A session on disk, in the user's state folder (never in the workspace), under
 * `<state>/sessions/<workspace key>/<id>/` (see `sessionsDir`):
 * - `session.json`: what the session is (model, task, status), rewritten atomically;
 * - `history.jsonl`: every message, one per line, append-only (the full history, never edited);
 * - `events.jsonl`: every agent event, one per line, append-only (tool calls, results, usage);
 * - `change-log.json`: the context manager's edits, rewritten atomically;
 * - `files.json`: the files the agent has seen, for changes made outside it.
 * A line cut short by a crash is skipped on load with a diagnostic; nothing before it is lost.
 */

const metaSchema = z.object({
  version: z.literal(1),
  id: z.string(),
  created: z.number(),
  cwd: z.string(),
  model: z.string(),
  provider: z.string(),
  task: z.string(),
  status: z.enum(["running", "completed", "interrupted", "failed", "max_turns", "answered"]),
  /** Instruction files already handed to the model (always-on, activated, nested). */
  instructionsGiven: z.array(z.string()).default([]),
  /** The date the context message stated, so a resumed session notices a new day. */
  date: z.string().optional(),
  mode: z.enum(["act", "plan"]).optional(),
  /**
   * The context manager's calibration per model id (reported ÷ counted prompt tokens), carried over on resume.
   * A damaged one is dropped (the estimate starts uncalibrated), never the session.
   */
  calibration: z
    .record(z.string(), z.object({ ratio: z.number().positive(), samples: z.number().int().positive() }))
    .optional()
    .catch(undefined),
})

/** What a session is. */
export type SessionMeta = z.output<typeof metaSchema>

/** A session could not be found or read. */
export class SessionError extends PromptlineError<"session-id-invalid" | "session-invalid" | "session-not-found"> {
  constructor(
    code: "session-id-invalid" | "session-invalid" | "session-not-found",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options)
  }
}

/**
 * Where a workspace's sessions are kept. By default the user's state folder (`promptlineStateDir`) found from
 * `home` and `env` (defaults: the user's home and the process's environment); `dir` names the folder outright.
 */
export interface SessionPlace {
  /** The folder this workspace's sessions live in; wins over `home`, `env` and `platform`. */
  dir?: string
  home?: string
  env?: Record<string, string | undefined>
  platform?: NodeJS.Platform
}

/** The folder a workspace is known by: its real path when it exists (a link and its target share sessions). */
function realWorkspace(workspace: string): string {
  const absolute = resolve(workspace)
  try {
    return realpathSync.native(absolute)
  } catch {
    return absolute
  }
}

/**
 * The folder a workspace's sessions live in: `<state>/sessions/<workspace key>` (its folder name and a hash of
 * its real path, `workspaceKey`), e.g. `~/.local/state/promptline/sessions/shop-3f2a9c…` on Linux.
 */
export function sessionsDir(workspace: string, place: SessionPlace = {}): string {
  if (place.dir !== undefined) return place.dir
  const state = promptlineStateDir(place.home ?? homedir(), place.env ?? process.env, place.platform)
  return join(state, "sessions", workspaceKey(realWorkspace(workspace)))
}

/** Where an older promptline kept a workspace's sessions: `.promptline/sessions` in the workspace itself. */
export const legacySessionsDir = (workspace: string): string => join(workspace, ".promptline", "sessions")

/** The files of a session folder; each must be a regular file when it exists. */
const SESSION_FILES = ["session.json", "history.jsonl", "events.jsonl", "change-log.json", "files.json"] as const

/** A new session id: the UTC time and four random bytes (`20261129-225501-1a2b3c4d`). */
export function newSessionId(now: number): string {
  const iso = new Date(now).toISOString()
  return `${iso.slice(0, 10).replace(/-/g, "")}-${iso.slice(11, 19).replace(/:/g, "")}-${randomBytes(4).toString("hex")}`
}

/** The session error for a session file that cannot be read or repaired, naming the file and the cause. */
function unreadable(path: string, error: unknown, what = "cannot be read"): SessionError {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
  return new SessionError("session-invalid", `${path}: ${what} (${code}); the session cannot be resumed`, {
    cause: error,
  })
}

/**
 * Checks that every file of a session folder is a regular file (or missing): a folder, a link, a FIFO or a
 * device in its place would fail or hang a read or a write later, with no word on which file.
 */
async function checkSessionFiles(dir: string): Promise<void> {
  for (const name of SESSION_FILES) {
    const path = join(dir, name)
    const info = await lstat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined
      throw unreadable(path, error)
    })
    if (info && !info.isFile()) {
      const kind = info.isDirectory() ? "a folder" : info.isSymbolicLink() ? "a symbolic link" : "not a regular file"
      throw new SessionError("session-invalid", `${path} is ${kind}; the session cannot be resumed`)
    }
  }
}

/**
 * Reads a JSON-lines file. A last line cut short by a crash is skipped and cut off the file, so the
 * next append starts on a line of its own instead of being glued to the torn one.
 */
async function readLines<T>(
  path: string,
  parse: (value: unknown) => { value: T } | string,
  diagnostics: Diagnostic[],
): Promise<T[]> {
  let raw: string
  try {
    raw = await readFile(path, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return []
    throw unreadable(path, error)
  }
  if (raw !== "" && !raw.endsWith("\n")) {
    try {
      await truncate(path, Buffer.byteLength(raw.slice(0, raw.lastIndexOf("\n") + 1)))
    } catch (error) {
      throw unreadable(path, error, "its torn last line cannot be cut off")
    }
  }
  const out: T[] = []
  const lines = raw.split("\n")
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      const last = i >= lines.length - 2
      diagnostics.push(
        diagnostic(
          last ? "warning" : "error",
          "session-line-skipped",
          last ? "the last line was cut short (a crash while writing); skipped" : "a line is not valid JSON; skipped",
          { path, line: i + 1 },
        ),
      )
      continue
    }
    const parsed = parse(value)
    if (typeof parsed === "string")
      diagnostics.push(diagnostic("warning", "session-line-skipped", `${parsed}; skipped`, { path, line: i + 1 }))
    else out.push(parsed.value)
  }
  return out
}

/** A history line as a message, or why it is not one (the first problem zod found, by field). */
function parseMessage(value: unknown): { value: Message } | string {
  const parsed = messageSchema.safeParse(value)
  if (parsed.success) return { value: parsed.data as Message }
  return `the line is not a message (${issueText(fieldIssues(parsed.error)[0]!, "")})`
}

/**
 * The messages of a history file, each id once. When lines were skipped, tool calls and results that
 * lost their partner become text, so what is sent stays well-formed for every provider.
 */
async function readHistoryLines(path: string, diagnostics: Diagnostic[]): Promise<Message[]> {
  const before = diagnostics.length
  const seen = new Set<string>()
  const history: Message[] = []
  for (const m of await readLines(path, parseMessage, diagnostics)) {
    if (seen.has(m.id)) {
      diagnostics.push(
        diagnostic("warning", "session-line-skipped", `a second message with id ${m.id}; skipped`, { path }),
      )
      continue
    }
    seen.add(m.id)
    history.push(m)
  }
  return diagnostics.length > before ? repairPairs(history) : history
}

/** The seen files of `files.json`; what is missing, unreadable or malformed is left out with a warning. */
async function readSeenFiles(path: string, diagnostics: Diagnostic[]): Promise<SeenFile[]> {
  let raw: string
  try {
    raw = await readFile(path, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return []
    diagnostics.push(diagnostic("warning", "seen-files-invalid", "cannot be read; files are tracked afresh", { path }))
    return []
  }
  let data: unknown
  try {
    data = parseJsonDocument(raw, path)
  } catch (error) {
    const why = error instanceof PromptlineError ? error.message : String(error)
    diagnostics.push(diagnostic("warning", "seen-files-invalid", `${why}; files are tracked afresh`, { path }))
    return []
  }
  const parsed = parseSeenFiles(data, path)
  diagnostics.push(...parsed.diagnostics)
  return parsed.files
}

/**
 * The folder of session `id`: in the state folder, else (a session an older promptline saved) in the workspace's
 * `.promptline/sessions`; a `session-not-found` error names both places.
 */
async function findSession(
  workspace: string,
  id: string,
  place: SessionPlace,
): Promise<{ dir: string; legacy: boolean }> {
  if (!/^[\w.-]+$/.test(id)) throw new SessionError("session-id-invalid", `"${id}" is not a session id`)
  const dir = join(sessionsDir(workspace, place), id)
  const legacy = join(legacySessionsDir(workspace), id)
  for (const [candidate, old] of [
    [dir, false],
    [legacy, true],
  ] as const) {
    const info = await lstat(join(candidate, "session.json")).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined
      throw unreadable(join(candidate, "session.json"), error)
    })
    if (info) return { dir: candidate, legacy: old }
  }
  throw new SessionError(
    "session-not-found",
    `no session "${id}" for ${workspace} (looked in ${sessionsDir(workspace, place)} and ${legacySessionsDir(workspace)})`,
  )
}

/** Reads and checks a session folder's `session.json`. */
async function readMeta(dir: string): Promise<SessionMeta> {
  const file = join(dir, "session.json")
  let raw: string
  try {
    raw = await readFile(file, "utf8")
  } catch (error) {
    throw unreadable(file, error)
  }
  const parsed = metaSchema.safeParse(parseJsonDocument(raw, file, "session-invalid"))
  if (!parsed.success) throw new SessionError("session-invalid", `${file}: ${issuesLine(fieldIssues(parsed.error))}`)
  return parsed.data
}

/** Reads what a session is (its `session.json`) without opening it: nothing is changed on disk. */
export async function readSessionMeta(workspace: string, id: string, place: SessionPlace = {}): Promise<SessionMeta> {
  return readMeta((await findSession(workspace, id, place)).dir)
}

/**
 * Moves a session an older promptline kept in the workspace to the state folder, and removes the
 * workspace's `.promptline/sessions` (and `.promptline`) when nothing else is left in them.
 */
async function moveLegacySession(from: string, to: string, workspace: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true })
  try {
    await rename(from, to)
  } catch (error) {
    // Another file system (a home on its own partition): copy, then remove the old folder.
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error
    await cp(from, to, { recursive: true, errorOnExist: true, force: false })
    await rm(from, { recursive: true })
  }
  for (const dir of [legacySessionsDir(workspace), join(workspace, ".promptline")]) {
    if ((await readdir(dir).catch(() => ["?"])).length > 0) break
    await rmdir(dir).catch(() => undefined)
  }
}

/** One session's files. Appends are serialized, so lines never interleave. */
export class Session {
  #meta: SessionMeta
  #queue: Promise<void> = Promise.resolve()

  private constructor(
    readonly dir: string,
    meta: SessionMeta,
  ) {
    this.#meta = meta
  }

  get id(): string {
    return this.#meta.id
  }

  get meta(): SessionMeta {
    return this.#meta
  }

  /** Creates a session folder and its meta file, in the state folder (see `sessionsDir`), never in the workspace. */
  static async create(
    workspace: string,
    meta: Omit<SessionMeta, "version" | "status" | "instructionsGiven">,
    place: SessionPlace = {},
  ): Promise<Session> {
    const dir = join(sessionsDir(workspace, place), meta.id)
    await mkdir(dir, { recursive: true })
    const session = new Session(dir, { ...meta, version: 1, status: "running", instructionsGiven: [] })
    await session.saveMeta()
    return session
  }

  /**
   * Opens an existing session with its history, change log and seen files. A session an older promptline
   * kept in the workspace (`.promptline/sessions/<id>`) is moved to the state folder first, with a notice.
   */
  static async resume(
    workspace: string,
    id: string,
    place: SessionPlace = {},
  ): Promise<{
    session: Session
    history: Message[]
    changeLog: ChangeLog
    files: SeenFile[]
    diagnostics: Diagnostic[]
  }> {
    const found = await findSession(workspace, id, place)
    const diagnostics: Diagnostic[] = []
    let dir = found.dir
    if (found.legacy) {
      dir = join(sessionsDir(workspace, place), id)
      try {
        await moveLegacySession(found.dir, dir, workspace)
        const message = `moved from the workspace (${found.dir}) to promptline's state folder; sessions are no longer kept in the workspace`
        diagnostics.push(diagnostic("info", "session-moved", message, { path: dir }))
      } catch (error) {
        // The old place still works: the session is resumed there.
        dir = found.dir
        const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message
        const message = `cannot be moved to ${sessionsDir(workspace, place)} (${why}); resumed where it is`
        diagnostics.push(diagnostic("warning", "session-not-moved", message, { path: found.dir }))
      }
    }
    await checkSessionFiles(dir)
    const meta = await readMeta(dir)
    // A save killed between writing its temporary file and the rename leaves the temporary file behind.
    for (const name of await removeStaleTemps(dir))
      diagnostics.push(
        diagnostic("info", "session-temp-removed", "removed a temporary file left by an interrupted save", {
          path: join(dir, name),
        }),
      )
    const history = await readHistoryLines(join(dir, "history.jsonl"), diagnostics)
    const log = await loadChangeLogFor(join(dir, "change-log.json"), history)
    diagnostics.push(...log.diagnostics)
    const files = await readSeenFiles(join(dir, "files.json"), diagnostics)
    return { session: new Session(dir, meta), history, changeLog: log.changeLog, files, diagnostics }
  }

  #append(file: string, line: string): Promise<void> {
    const next = this.#queue.then(async () => {
      const handle = await open(join(this.dir, file), "a")
      try {
        await handle.appendFile(line)
        await handle.sync()
      } finally {
        await handle.close()
      }
    })
    this.#queue = next.catch(() => undefined)
    return next
  }

  /** Appends a message to the history. */
  appendMessage(message: Message): Promise<void> {
    return this.#append("history.jsonl", `${JSON.stringify(message)}\n`)
  }

  /** Appends an event to the event log. */
  appendEvent(event: AgentEvent): Promise<void> {
    return this.#append("events.jsonl", `${JSON.stringify(event)}\n`)
  }

  /** Rewrites the meta file atomically with the given changes. */
  async update(changes: Partial<Omit<SessionMeta, "version" | "id">>): Promise<void> {
    this.#meta = { ...this.#meta, ...changes }
    await this.saveMeta()
  }

  private async saveMeta(): Promise<void> {
    await writeFileAtomic(join(this.dir, "session.json"), `${JSON.stringify(this.#meta, null, 1)}\n`)
  }

  /** Saves the change log and the seen files (atomically), after the appends queued so far. */
  async saveState(changeLog: ChangeLog, files: readonly SeenFile[]): Promise<void> {
    await this.#queue
    await changeLog.save(join(this.dir, "change-log.json"))
    await writeFileAtomic(join(this.dir, "files.json"), `${JSON.stringify(files, null, 1)}\n`)
  }

  /** Waits for every queued append. */
  flush(): Promise<void> {
    return this.#queue
  }
}
