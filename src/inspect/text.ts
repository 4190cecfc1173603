/** Helpers for fixed-width terminal text: number formats, bars, fitting and wrapping, optional color. */

/** The narrowest terminal report; a narrower width is rendered at this one. */
export const MIN_TEXT_WIDTH = 60

/** Formats a whole number with thousands separators. */
export const num = (n: number): string => Math.round(n).toLocaleString("en-US")

/** Formats a share (0..1) as a percentage with one decimal. */
export const pct = (share: number): string => `${(share * 100).toFixed(1)}%`

/** Formats a signed token delta: `+12`, `-3`, `0`. */
export const signed = (n: number): string => (n > 0 ? `+${num(n)}` : n < 0 ? `-${num(-n)}` : "0")

const EIGHTHS = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]

/** A horizontal bar of `width` columns filled to `share` (eighth-column steps). */
export function bar(share: number, width: number): string {
  const eighths = Math.round(Math.min(1, Math.max(0, share)) * width * 8)
  const full = Math.floor(eighths / 8)
  const part = EIGHTHS[eighths % 8]!
  const filled = "█".repeat(full) + part
  return filled + "·".repeat(width - full - (part ? 1 : 0))
}

/** Cuts text to `width` columns (ending in an ellipsis) or pads it to exactly `width`. */
export function cell(text: string, width: number): string {
  const chars = [...text]
  if (chars.length > width) return `${chars.slice(0, Math.max(0, width - 1)).join("")}…`
  return text + " ".repeat(width - chars.length)
}

/** Right-aligns text in `width` columns. */
export const right = (text: string, width: number): string => text.padStart(width)

/** Wraps text at word boundaries to `width` columns; continuation lines get `indent`. Long words are split. */
export function wrap(text: string, width: number, indent = ""): string[] {
  const lines: string[] = []
  const limit = () => Math.max(1, lines.length === 0 ? width : width - indent.length)
  let line: string[] = []
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    let chars = [...word]
    if (line.length > 0 && line.length + 1 + chars.length <= limit()) {
      line.push(" ", ...chars)
      continue
    }
    if (line.length > 0) lines.push(line.join(""))
    line = []
    while (chars.length > limit()) {
      const cut = limit()
      lines.push(chars.slice(0, cut).join(""))
      chars = chars.slice(cut)
    }
    line = chars
  }
  if (line.length > 0 || lines.length === 0) lines.push(line.join(""))
  return lines.map((l, i) => (i === 0 ? l : indent + l))
}

/** ANSI styles used by the renderers. */
export type Style = "bold" | "dim" | "red" | "yellow" | "green" | "cyan"

const CODES: Record<Style, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  yellow: [33, 39],
  green: [32, 39],
  cyan: [36, 39],
}

/** Returns a painter: styles text with ANSI codes when `color` is on, else returns it unchanged. */
export function painter(color: boolean): (style: Style, text: string) => string {
  return (style, text) => (color ? `\u001b[${CODES[style][0]}m${text}\u001b[${CODES[style][1]}m` : text)
}

/**
 * Splits `width` columns among shares (largest remainder): the columns add up to `width`, and each share above
 * zero gets at least one column while there are columns for all of them (taken from the widest).
 */
export function columnsOf(shares: readonly number[], width: number): number[] {
  const total = shares.reduce((a, b) => a + Math.max(0, b), 0)
  if (total === 0 || width <= 0) return shares.map(() => 0)
  const exact = shares.map((s) => (Math.max(0, s) / total) * width)
  const cols = exact.map(Math.floor)
  let left = width - cols.reduce((a, b) => a + b, 0)
  const order = exact.map((x, i) => ({ i, rest: x - Math.floor(x) })).sort((a, b) => b.rest - a.rest || a.i - b.i)
  for (const { i } of order) {
    if (left === 0) break
    cols[i]! += 1
    left -= 1
  }
  const visible = shares.filter((s) => s > 0).length
  if (visible <= width)
    for (const [i, s] of shares.entries()) {
      if (s <= 0 || cols[i]! > 0) continue
      const widest = cols.indexOf(Math.max(...cols))
      cols[widest]! -= 1
      cols[i] = 1
    }
  return cols
}
