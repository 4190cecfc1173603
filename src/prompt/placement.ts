/**
 * The context message wraps each volatile section in a tag (`<project_instructions>` ...). Text from
 * files could otherwise close that tag and pose as another section, so any of our tags inside a
 * section's text is neutralized: its `<` becomes `&lt;`.
 */
export function neutralizeTags(text: string, tags: readonly string[]): string {
  if (!text.includes("<")) return text
  const names = tags.map((t) => t.replace(/[^a-zA-Z0-9_-]/g, "")).filter(Boolean)
  if (names.length === 0) return text
  const pattern = new RegExp(`<(/?\\s*(?:${names.join("|")})(?=[\\s>/]|$))`, "gi")
  return text.replace(pattern, "&lt;$1")
}
