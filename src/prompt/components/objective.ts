import type { PromptContext } from "../../context/prompt-context.js"
import { type ComponentEnv, defineComponent } from "../component.js"

const COMPLETE = "${{ tools.by_kind.complete }}"

/**
 * The steps of a task in act mode. Each is said only when the tools allow it: no "run the tests" without
 * a command tool, no "fix what you broke" without an edit tool.
 */
function actSteps(_ctx: PromptContext, { tools, toolCalling, brief }: ComponentEnv): string[] {
  const changes = tools.has("edit") || tools.has("write")
  const steps: string[] = []
  if (tools.has("read") || tools.has("search") || tools.has("list"))
    steps.push("Work out what the task needs; beyond a small change, first read the relevant code and its tests.")
  // The XML dialect's tool-use section already says: one call per message, then wait for its result.
  if (tools.list.length > 0 && toolCalling === "native")
    steps.push(
      "Work in steps, one tool at a time where each depends on the last. Check each result before you build on it.",
    )
  if (tools.has("execute") && changes)
    steps.push(
      "Verify: run the tests, the build or the program where you can, and fix what you broke. If an existing test fails after your change, suspect the change, not the test: edit a test only when the task changes what it checks.",
    )
  else if (tools.has("execute"))
    steps.push("Check what you claim by running the tests or the program where that helps.")
  else if (changes) steps.push("You cannot run commands: re-read what you changed, and say what you could not verify.")
  const complete = tools.has("complete")
  const summary = changes ? "what changed and how you verified it" : "what you found and how you know"
  // A brief prompt's completion tool does not repeat when to call it: this step says it.
  const done = brief ? "done and checked" : "done"
  let finish = complete
    ? `When the task is ${done}, call ${COMPLETE} with a short summary: ${summary}.`
    : `When the task is done, give a short summary: ${summary}.`
  if (complete)
    finish += ` Answer a question or a task that needs no change directly in your reply, without ${COMPLETE}.`
  steps.push(finish)
  return steps
}

/** The steps of plan mode: explore, change nothing, present the plan. */
function planSteps(ctx: PromptContext, { tools }: ComponentEnv): string[] {
  const steps: string[] = []
  if (tools.has("read") || tools.has("search") || tools.has("list"))
    steps.push("Work out what the task needs: read the relevant code and the tests.")
  steps.push(`This is plan mode: change nothing${tools.has("execute") ? ", and run only commands that read" : ""}.`)
  const how = tools.has("plan_respond") ? " with ${{ tools.by_kind.plan_respond }}" : ""
  const assumptions = ctx.autonomy === "auto" ? " List the assumptions you made." : ""
  steps.push(
    `Present a concrete plan${how}: the files to change, the approach, how to verify it, the risks.${assumptions}`,
  )
  return steps
}

const SUBAGENT_OBJECTIVE = `# Objective

Do the delegated task with the fewest steps that answer it, verifying what you claim. \${% if tools.by_kind.complete %}Finish with \${{ tools.by_kind.complete }}; its result is your report: \${% else %}End with your report: \${% endif %}the answer, the evidence (file paths, line numbers, command output) and anything left undone.`

/** How to approach a task and how to finish it, in the current mode. */
export const objective = defineComponent(
  "objective",
  (ctx, env) => {
    if (ctx.audience === "subagent") return SUBAGENT_OBJECTIVE
    const steps = ctx.mode === "plan" ? planSteps(ctx, env) : actSteps(ctx, env)
    return `# Objective\n\n${steps.map((s, i) => `${i + 1}. ${s}`).join("\n")}`
  },
  { reads: ["audience", "mode", "autonomy"] },
)
