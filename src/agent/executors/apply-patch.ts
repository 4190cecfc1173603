import { lstat, readFile, readlink, rm, symlink } from "node:fs/promises"
import { z } from "zod"
import { taskProgressArg } from "./args.js"
import { type AllowedPath, commitFile, looksBinary, resolveIn, stageFile, toolPath, writeFileAtomic } from "./files.js"
import { count, failure, success } from "./outcome.js"
import { applyChunks } from "./patch-apply.js"
import { parsePatch } from "./patch-parse.js"
import { defineExecutor, type ResolvedEnv, type TouchedPath } from "./types.js"

const schema = z.object({
  input: z.string({ error: "expected the patch text as a string" }).min(1, "must not be empty"),
  task_progress: taskProgressArg,
})

/**
 * A file as the patch sees it, at its real path (a symlink is written through): its text on disk
 * (null when absent) and its text after the patch so far.
 */
interface FileState {
  where: AllowedPath
  before: string | null
  after: string | null
}

/** A symbolic link the patch deletes (or moves away): the link goes, the file it points to stays. */
interface RemovedLink {
  where: AllowedPath
  target: string
}

class Refusal extends Error {}

/** The files a patch touches, read lazily, changed only in memory until every operation has succeeded. */
class PatchPlan {
  /** Keyed by real path, so a link and the file it points to share one state. */
  readonly files = new Map<string, FileState>()
  /** Keyed by the link's own absolute path. */
  readonly removedLinks = new Map<string, RemovedLink>()
  readonly log: string[] = []
  constructor(private readonly env: ResolvedEnv) {}

  async file(path: string): Promise<FileState> {
    const found = await toolPath(this.env, path, { access: "write", verb: "patch" })
    if (!found.ok) throw new Refusal(found.reason)
    const { where, info, kind } = found
    if (this.removedLinks.has(where.absolute)) throw new Refusal(`${where.display} was deleted earlier in this patch`)
    const known = this.files.get(where.real)
    if (known) return known
    let before: string | null = null
    if (kind) throw new Refusal(`${where.display} is ${kind}, not a regular file`)
    if (info) {
      const raw = await readFile(where.real)
      if (looksBinary(raw.subarray(0, 8192))) throw new Refusal(`${where.display} looks like a binary file`)
      before = raw.toString("utf8")
    }
    const state: FileState = { where, before, after: before }
    this.files.set(where.real, state)
    return state
  }

  /**
   * Removes the file at `path` as the patch asked for it: a symbolic link itself (its target stays,
   * as `rm` would do), a file by emptying its state. The log line is the caller's.
   */
  async remove(path: string, file: FileState): Promise<void> {
    const where = await resolveIn(this.env, path, "write")
    if (!where.ok) throw new Refusal(where.reason)
    const link = await lstat(where.absolute).catch(() => undefined)
    if (link?.isSymbolicLink()) {
      this.removedLinks.set(where.absolute, { where, target: await readlink(where.absolute) })
    } else file.after = null
  }
}

/**
 * Writes every changed file, then removes deleted files and links; on a failure restores what was
 * already changed.
 */
async function commit(plan: PatchPlan): Promise<void> {
  const changed = [...plan.files.values()].filter((f) => f.after !== f.before)
  const staged: { file: FileState; temp: string }[] = []
  try {
    for (const file of changed)
      if (file.after !== null) staged.push({ file, temp: await stageFile(file.where.real, file.after) })
  } catch (error) {
    await Promise.all(staged.map((s) => rm(s.temp, { force: true })))
    throw error
  }
  const done: FileState[] = []
  const unlinked: RemovedLink[] = []
  try {
    for (const { file, temp } of staged) {
      await commitFile(temp, file.where.real)
      done.push(file)
    }
    for (const file of changed) {
      if (file.after === null) {
        await rm(file.where.real)
        done.push(file)
      }
    }
    for (const link of plan.removedLinks.values()) {
      await rm(link.where.absolute)
      unlinked.push(link)
    }
  } catch (error) {
    await Promise.all(staged.map((s) => rm(s.temp, { force: true })))
    for (const link of unlinked) await symlink(link.target, link.where.absolute).catch(() => undefined)
    for (const file of done.reverse()) {
      if (file.before === null) await rm(file.where.real, { force: true }).catch(() => undefined)
      else await writeFileAtomic(file.where.real, file.before).catch(() => undefined)
    }
    throw error
  }
}

/** apply_patch: applies a multi-file patch (add, update, move, delete) completely or not at all. */
export const applyPatchExecutor = defineExecutor({
  id: "apply_patch",
  schema,
  async run(input, env) {
    const parsed = parsePatch(input.input)
    if ("error" in parsed) {
      return failure(
        `The patch was not applied: line ${parsed.error.line}: ${parsed.error.message}.`,
        "patch rejected: syntax error",
      )
    }
    const plan = new PatchPlan(env)
    try {
      for (const op of parsed.ops) {
        const file = await plan.file(op.path)
        const shown = file.where.display
        if (op.type === "add") {
          plan.log.push(`${file.after === null ? "added" : "replaced"} ${shown}`)
          file.after = op.lines.length ? `${op.lines.join("\n")}\n` : ""
        } else if (op.type === "delete") {
          if (file.after === null) throw new Refusal(`Delete File ${shown}: no such file`)
          await plan.remove(op.path, file)
          plan.log.push(`deleted ${shown}`)
        } else {
          if (file.after === null) throw new Refusal(`Update File ${shown}: no such file`)
          const result = applyChunks(file.after.replace(/\r\n/g, "\n"), op.chunks)
          if ("error" in result) throw new Refusal(`Update File ${shown}: ${result.error}`)
          const crlf = file.after.includes("\r\n")
          const text = crlf ? result.text.replace(/\n/g, "\r\n") : result.text
          if (op.moveTo === undefined) {
            file.after = text
            plan.log.push(`updated ${shown}`)
          } else {
            const target = await plan.file(op.moveTo)
            if (target === file) {
              file.after = text
              plan.log.push(`updated ${shown}`)
            } else {
              if (target.after !== null) throw new Refusal(`Move to ${target.where.display}: that file already exists`)
              target.after = text
              await plan.remove(op.path, file)
              plan.log.push(`moved ${shown} to ${target.where.display}${op.chunks.length ? " and updated it" : ""}`)
            }
          }
        }
      }
    } catch (error) {
      if (!(error instanceof Refusal)) throw error
      return failure(`The patch was not applied (no file changed): ${error.message}.`, "patch rejected")
    }
    try {
      await commit(plan)
    } catch (error) {
      return failure(
        `The patch was not applied (changes rolled back): ${(error as Error).message}`,
        "patch failed while writing",
      )
    }
    const touched: TouchedPath[] = [
      ...[...plan.files.values()].filter((f) => f.after !== f.before).map((f) => f.where),
      ...[...plan.removedLinks.values()].map((link) => link.where),
    ].map((where) => ({ path: where.display, access: "write" }))
    const changedCount = touched.length
    return success(`Patch applied: ${plan.log.join("; ")}.`, `patched ${count(changedCount, "file")}`, {
      touched,
      details: { operations: plan.log },
    })
  },
})
