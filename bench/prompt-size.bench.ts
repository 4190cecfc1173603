// bench/prompt-size: o200k tokens of the compact prompt (small and local models) on a plain context and on Cline's
// test context, against Cline's compact snapshot for a local model. Deterministic: no timing.
import { readFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { encode } from "gpt-tokenizer/encoding/o200k_base"
import { PromptBuilder } from "../src/prompt/builder.js"
import { basicContext } from "../src/prompt/test-helpers/contexts.js"
import type { Benchmark } from "./harness.js"
import { clineContext } from "./prompt-build.bench.js"

const here = dirname(fileURLToPath(import.meta.url))
/** The compact variant's limit (src/prompt/variants/compact.ts). */
const LIMIT = 1200

/** What the model reads of a build: the system prompt and the context message. */
function tokensOf(built: { text: string; contextMessage?: string; variant: string }): number {
  if (built.variant !== "compact") throw new Error(`expected the compact variant, got ${built.variant}`)
  return encode(built.contextMessage ? `${built.text}\n${built.contextMessage}` : built.text).length
}

const benchmark: Benchmark = {
  name: "prompt-size",
  async run() {
    const local = { id: "qwen3-coder:30b", provider: "lmstudio" }
    // A plain project: no instruction files, the basic context's environment (git status included).
    const plain = tokensOf(new PromptBuilder().build(basicContext({ model: local, instructions: [] })))
    const inline = tokensOf(
      new PromptBuilder().build(basicContext({ model: local, instructions: [], placement: "system" })),
    )
    const cline = tokensOf(new PromptBuilder().build(clineContext(local)))
    const snapshot = await readFile(
      join(here, "../../shared/reference/cline-snapshots/lmstudio_qwen3_coder-basic.snap"),
      "utf8",
    ).catch(() => undefined)
    const clineTokens = snapshot === undefined ? undefined : encode(snapshot).length
    return [
      {
        name: "compact prompt, plain context: system prompt and context message (o200k tokens)",
        unit: "tokens",
        ours: plain,
        better: "lower",
        target: `≤ ${LIMIT.toLocaleString("en-US")}`,
        met: plain <= LIMIT,
      },
      {
        name: "compact prompt, plain context, placement system (o200k tokens)",
        unit: "tokens",
        ours: inline,
        better: "lower",
        target: `≤ ${LIMIT.toLocaleString("en-US")}`,
        met: inline <= LIMIT,
      },
      {
        name: "compact prompt for Cline's test context (o200k tokens)",
        unit: "tokens",
        ours: cline,
        ...(clineTokens === undefined
          ? {}
          : { peer: { name: "Cline snapshot lmstudio_qwen3_coder-basic (xs)", value: clineTokens } }),
        better: "lower",
        target: `≤ ${LIMIT.toLocaleString("en-US")}`,
        met: cline <= LIMIT,
      },
    ]
  },
}

export default benchmark
