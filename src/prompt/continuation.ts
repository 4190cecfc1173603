/**
 * The fixed message that follows a compaction summary: it tells the model how to pick the task up
 * from a summary instead of the full conversation. Fixed text, so it never moves a cached prefix.
 * The text lives with the other run-time notices (src/notices.ts).
 */
export { CONTINUATION_PROMPT } from "../notices.js"
