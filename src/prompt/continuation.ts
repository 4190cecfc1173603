/**
 * The fixed message that follows a compaction summary: it tells the model how to pick the task up
 * from a summary instead of the full conversation. Fixed text, so it never moves a cached prefix.
 */
export const CONTINUATION_PROMPT = `The conversation so far was compacted: the summary above replaces the earlier messages. Continue the task from where it stopped, without repeating finished steps and without asking about what the summary already answers. The summary describes files as they were; read a file again before you change it.`
