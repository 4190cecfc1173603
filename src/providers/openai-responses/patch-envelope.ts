/**
 * The `*** Begin Patch` envelope promptline's apply_patch tool takes, built from an OpenAI `apply_patch_call`
 * operation (`create_file`, `update_file`, `delete_file`, with its path and diff): the head names the operation and
 * the file, the body is the diff, and `*** End Patch` closes it.
 */
import { str } from "../stream.js"

/** The line that closes an envelope. */
export const PATCH_END = "*** End Patch"

/** The opening of an `apply_patch_call` operation's envelope: `*** Begin Patch` and the line naming the file. */
export function patchHead(operation: Record<string, unknown>): string {
  const path = str(operation.path) ?? ""
  const verb = operation.type === "create_file" ? "Add" : operation.type === "delete_file" ? "Delete" : "Update"
  return `*** Begin Patch\n*** ${verb} File: ${path}\n`
}

/** The diff lines of an envelope: none for a deleted file, else the diff ending with a newline. */
export function patchBody(type: unknown, diff: string): string {
  if (type === "delete_file") return ""
  return diff === "" || diff.endsWith("\n") ? diff : `${diff}\n`
}

/** An `apply_patch_call` operation as the `*** Begin Patch` envelope our apply_patch tool takes. */
export function patchEnvelope(operation: Record<string, unknown>): string {
  return `${patchHead(operation)}${patchBody(operation.type, str(operation.diff) ?? "")}${PATCH_END}`
}
