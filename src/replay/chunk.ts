/**
 * Splits text into stream deltas the way providers do: pieces of roughly `size` characters, cut
 * after whitespace when possible, never inside a surrogate pair. Joining the pieces gives the text.
 */
export function splitText(text: string, size: number): string[] {
  if (text === "") return []
  const limit = Math.max(1, Math.floor(size))
  const pieces: string[] = []
  let start = 0
  while (start < text.length) {
    let end = Math.min(text.length, start + limit)
    if (end < text.length) {
      const window = text.slice(start, end)
      const lastSpace = Math.max(window.lastIndexOf(" "), window.lastIndexOf("\n"))
      if (lastSpace > 0) end = start + lastSpace + 1
      // Never leave a high surrogate at the end of a piece.
      const code = text.charCodeAt(end - 1)
      if (code >= 0xd800 && code <= 0xdbff && end - start > 1) end -= 1
      else if (code >= 0xd800 && code <= 0xdbff) end += 1
    }
    pieces.push(text.slice(start, end))
    start = end
  }
  return pieces
}
