/** Offsets `[start, end)` of Markdown code: fenced blocks and inline code spans. */
export function codeRanges(text: string): [number, number][] {
  const ranges: [number, number][] = []
  const lines = text.split("\n")
  let offset = 0
  let fence: { marker: string; start: number } | undefined
  const prose: [number, number][] = []
  let proseStart = 0
  for (const line of lines) {
    const lineEnd = offset + line.length
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line)
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line)
      if (close && close[1]![0] === fence.marker[0] && close[1]!.length >= fence.marker.length) {
        ranges.push([fence.start, lineEnd])
        fence = undefined
        proseStart = lineEnd + 1
      }
    } else if (open) {
      prose.push([proseStart, offset])
      fence = { marker: open[1]!, start: offset }
    }
    offset = lineEnd + 1
  }
  if (fence) ranges.push([fence.start, text.length])
  else prose.push([proseStart, text.length])
  for (const [from, to] of prose) {
    const re = /`+/g
    re.lastIndex = from
    for (let m = re.exec(text); m && m.index < to; m = re.exec(text)) {
      const run = m[0]
      const close = text.indexOf(run, m.index + run.length)
      // A closing run must have exactly the same length and end before the prose part does.
      let end = close
      while (end >= 0 && end < to && text[end + run.length] === "`") end = text.indexOf(run, end + run.length + 1)
      if (end < 0 || end >= to) continue
      ranges.push([m.index, end + run.length])
      re.lastIndex = end + run.length
    }
  }
  return ranges.sort((a, b) => a[0] - b[0])
}

/** True when `offset` lies inside one of the ranges. */
export function insideRanges(ranges: readonly [number, number][], offset: number): boolean {
  return ranges.some(([from, to]) => offset >= from && offset < to)
}
