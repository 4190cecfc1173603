import { compilePattern, type ScriptTurn } from "./script.js"
import type { RequestView, ToolResultView } from "./view.js"

/** Shortens text for an error message: one line, at most `max` characters. */
function excerpt(text: string, max = 80): string {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

const describeResult = (r: ToolResultView) => `${r.tool ?? "(unknown tool)"}: "${excerpt(r.text)}"`

const mentions = (text: string, name: string) =>
  new RegExp(`(^|[^a-zA-Z0-9_-])${name.replace(/[-]/g, "\\-")}($|[^a-zA-Z0-9_-])`).test(text)

/**
 * Checks a request against the turn that is about to answer it. Returns one line per problem;
 * an empty list means the agent is still on the scripted path.
 */
export function checkTurn(turn: ScriptTurn, view: RequestView): string[] {
  const problems: string[] = []
  const expect = turn.expect ?? {}
  if (expect.dialect !== undefined && expect.dialect !== view.dialect)
    problems.push(`expected the ${expect.dialect} tool dialect, the request uses ${view.dialect}`)
  if (expect.system !== undefined && !compilePattern(expect.system).test(view.system))
    problems.push(`the system prompt does not match ${expect.system}`)
  if (expect.userText !== undefined && !compilePattern(expect.userText).test(view.lastTurn.text))
    problems.push(`the last user text does not match ${expect.userText}: "${excerpt(view.lastTurn.text)}"`)
  for (const wanted of expect.toolResults ?? []) {
    const found = view.lastTurn.toolResults.some(
      (r) =>
        (wanted.tool === undefined || r.tool === wanted.tool) &&
        (wanted.matches === undefined || compilePattern(wanted.matches).test(r.text)),
    )
    if (!found) {
      const what = `a tool result${wanted.tool ? ` of ${wanted.tool}` : ""}${wanted.matches ? ` matching ${wanted.matches}` : ""}`
      const had = view.lastTurn.toolResults.map(describeResult).join("; ") || "no tool results"
      problems.push(`expected ${what}; the last turn has ${had}`)
    }
  }
  for (const name of expect.tools ?? []) {
    const offered = view.dialect === "native" ? view.tools.includes(name) : mentions(view.system, name)
    if (!offered)
      problems.push(
        view.dialect === "native"
          ? `the request does not declare the tool ${name}`
          : `the system prompt does not mention the tool ${name}`,
      )
  }
  if (view.dialect === "native") {
    for (const call of turn.toolCalls ?? []) {
      if (!view.tools.includes(call.name))
        problems.push(`the turn calls ${call.name}, which the request does not declare (${view.tools.join(", ")})`)
    }
  }
  return problems
}
