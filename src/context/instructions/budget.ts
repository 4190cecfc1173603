import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import type { InstructionFile } from "../prompt-context.js"
import { utf8Boundary } from "./read.js"

/** The default size budget for all always-on instruction text: 32 KiB. */
export const DEFAULT_INSTRUCTION_BUDGET = 32 * 1024

const bytes = (text: string): number => Buffer.byteLength(text, "utf8")

/** The notice a cut file ends with, so the model knows text is missing and where to find it. */
export function budgetNotice(path: string, kept: number, total: number): string {
  return `[promptline: this file was cut to fit the instruction budget; ${kept} of ${total} bytes kept. Read ${path} for the rest.]`
}

/** The head of `text` in at most `max` UTF-8 bytes, cut at a line end when there is one. */
export function headAtLineEnd(text: string, max: number): string {
  if (max <= 0) return ""
  const buf = Buffer.from(text, "utf8")
  if (buf.length <= max) return text
  const head = buf.subarray(0, max + 1)
  const newline = head.lastIndexOf(0x0a)
  const end = newline > 0 ? newline : utf8Boundary(buf, max)
  return buf.subarray(0, end).toString("utf8").trimEnd()
}

function cut(file: InstructionFile, allowed: number): { file: InstructionFile; kept: number; total: number } {
  const total = bytes(file.text)
  const worst = bytes(budgetNotice(file.path, total, total))
  const head = headAtLineEnd(file.text, allowed - worst - 2)
  const kept = bytes(head)
  const notice = budgetNotice(file.path, kept, total)
  return { file: { ...file, text: head === "" ? notice : `${head}\n\n${notice}`, truncated: true }, kept, total }
}

/**
 * Fits always-on instruction text into `budget` bytes, cutting the least specific files first (the list is
 * ordered general → specific), each from its end, with a notice. A file loaded on demand (conditional,
 * requested, manual, nested) is cut alone to the same budget, since it is attached by itself later.
 */
export function applyBudget(
  files: readonly InstructionFile[],
  budget: number,
): { files: InstructionFile[]; diagnostics: Diagnostic[] } {
  const out = [...files]
  const diagnostics: Diagnostic[] = []
  const report = (path: string, done: { kept: number; total: number }, why: string) => {
    const message = `${why}: kept ${done.kept} of ${done.total} bytes (budget ${budget} bytes)`
    diagnostics.push(diagnostic("warning", "instruction-budget", message, { path }))
  }
  const always = out.flatMap((f, i) => (f.activation.when === "always" ? [i] : []))
  let total = always.reduce((sum, i) => sum + bytes(out[i]!.text), 0)
  for (const i of always) {
    const excess = total - budget
    if (excess <= 0) break
    const before = out[i]!
    const size = bytes(before.text)
    const done = cut(before, size - excess)
    // A file shorter than its notice gains nothing from a cut: leave it whole and cut the next one.
    if (bytes(done.file.text) >= size) continue
    out[i] = done.file
    total += bytes(done.file.text) - size
    report(before.path, done, "the instruction budget cut this file (least specific text goes first)")
  }
  out.forEach((file, i) => {
    if (file.activation.when === "always" || bytes(file.text) <= budget) return
    const done = cut(file, budget)
    out[i] = done.file
    report(file.path, done, "this on-demand file is larger than the instruction budget and was cut")
  })
  return { files: out, diagnostics }
}
