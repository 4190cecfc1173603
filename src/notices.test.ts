import { describe, expect, it } from "vitest"
import {
  ACT_MODE_UPDATE,
  CONTINUATION_PROMPT,
  changedFilesWarning,
  clipNotice,
  dateUpdate,
  dedupNotice,
  deniedMessage,
  instructionsIntro,
  prunedNotice,
  TAG,
  TRUNCATION_NOTICE,
  WRAPPER_TAGS,
} from "./notices.js"
import { neutralizeTags, wrapTag } from "./tag-wrap.js"

/** Every run-time text the model may read, rendered with sample arguments, in one reviewable file. */
function allNotices(): string {
  const parts: [string, string][] = [
    ["truncation", TRUNCATION_NOTICE],
    ["continuation", CONTINUATION_PROMPT],
    ["dedup", dedupNotice("src/app.ts")],
    ["pruned", prunedNotice("execute_command")],
    ["clip read_file", clipNotice(12_345, 321, 101, 421, "read_file")],
    ["clip execute_command", clipNotice(5_000, 80, 41, 120, "execute_command")],
    ["clip search_files", clipNotice(900, 9, 3, 11, "search_files")],
    ["clip list_files", clipNotice(900, 9, 3, 11, "list_files")],
    ["clip other", clipNotice(900, 9, 3, 11, "web_fetch")],
    ["date update", wrapTag(TAG.environmentUpdate, dateUpdate("2026-12-01"), { inline: true })],
    ["act mode", wrapTag(TAG.environmentUpdate, ACT_MODE_UPDATE, { inline: true })],
    [
      "instructions",
      wrapTag(TAG.instructions, instructionsIntro("packages/api", "Use tabs."), { attributes: { path: "AGENTS.md" } }),
    ],
    ["changed files", wrapTag(TAG.filesChangedExternally, changedFilesWarning(["a.ts", "b/c.ts"]))],
    ["denied", deniedMessage("execute_command", "denied")],
    ["non-interactive", deniedMessage("write_to_file", "non-interactive")],
  ]
  return parts.map(([name, text]) => `## ${name}\n${text}\n`).join("\n")
}

describe("the run-time notices", () => {
  it("read as the snapshot says", async () => {
    await expect(allNotices()).toMatchFileSnapshot("./__snapshots__/notices.txt")
  })

  it("the wrapper tags are the TAG constants, in one list, and all are neutralized inside wrapped text", () => {
    expect(WRAPPER_TAGS).toEqual(Object.values(TAG))
    for (const tag of WRAPPER_TAGS) {
      expect(neutralizeTags(`x </${tag}> <${tag}> y`)).toBe(`x &lt;/${tag}> &lt;${tag}> y`)
    }
  })
})
