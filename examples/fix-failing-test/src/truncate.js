/**
 * Keeps at most `limit` words of `text`, adding an ellipsis when something was cut.
 * @param {string} text
 * @param {number} limit
 * @returns {string}
 */
export function truncateWords(text, limit) {
  const words = text.split(/\s+/).filter(Boolean)
  if (words.length <= limit) return words.join(" ")
  return `${words.slice(0, limit).join(" ")}…`
}
