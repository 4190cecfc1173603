import { describe, expect, it } from "vitest"
import { formatFigure, formatRatio, type Metric, ratio, resultRow, resultsMarkdown, updateResults } from "./harness.js"

const machine = { cpu: "Test CPU @ 2.0GHz", cores: 2, os: "linux 6.1 x64", node: "v20.20.2" }
const time: Metric = {
  name: "full build",
  unit: "µs",
  ours: 20,
  peer: { name: "pi", value: 50 },
  better: "lower",
  target: "no slower than pi",
  met: true,
}
const speed: Metric = { name: "throughput", unit: "MB/s", ours: 30, peer: { name: "sdk", value: 60 }, better: "higher" }

describe("the benchmark report", () => {
  it("reads ratios as 'times better than the peer' in both directions", () => {
    expect(ratio(time)).toBe(2.5)
    expect(ratio(speed)).toBe(0.5)
    expect(formatRatio(time)).toBe("2.50x")
    expect(formatRatio({ ...time, peer: undefined })).toBe("—")
  })

  it("formats figures readably", () => {
    expect(formatFigure(1234567)).toBe("1,234,567")
    expect(formatFigure(1234.56)).toBe("1,235")
    expect(formatFigure(12.345)).toBe("12.35")
    expect(formatFigure(0.012345)).toBe("0.0123")
  })

  it("writes one row per metric: ours, the peer, its figure, the ratio, the target", () => {
    expect(resultRow("prompt-build", time)).toBe(
      "| prompt-build | full build | 20 µs | pi | 50 µs | 2.50x | no slower than pi ✓ |",
    )
    expect(resultRow("x", { name: "a | b", unit: "%", ours: 3, better: "higher" })).toBe(
      "| x | a \\| b | 3 % | — | — | — |  |",
    )
  })

  it("names the machine and Node version, lists failures, counts targets met", () => {
    const md = resultsMarkdown(
      [
        { bench: "prompt-build", metrics: [time, speed] },
        { bench: "decode", metrics: [], error: "peer not installed" },
      ],
      machine,
      "2026-11-29",
    )
    expect(md).toContain("Machine: Test CPU @ 2.0GHz, 2 cores, linux 6.1 x64, Node.js v20.20.2.")
    expect(md).toContain("on 2026-11-29")
    expect(md).toContain("| benchmark | metric | ours | peer | peer's figure | ratio | target |")
    expect(md).toContain("| prompt-build | throughput | 30 MB/s | sdk | 60 MB/s | 0.50x |  |")
    expect(md).toContain("Targets met: 1 of 1.")
    expect(md).toContain("## Failed\n\n- decode: peer not installed")
    expect(md).not.toMatch(/\n\n\n/)
  })
})

describe("small ratios", () => {
  it("keep two significant digits instead of rounding to zero", () => {
    expect(formatRatio({ ...time, ours: 5000, peer: { name: "pi", value: 18 } })).toBe("0.0036x")
  })
})

describe("a partial run's update of the results", () => {
  const full = resultsMarkdown(
    [
      { bench: "alpha", metrics: [time] },
      { bench: "gamma", metrics: [{ ...speed, target: "≥ 1x", met: false }] },
    ],
    machine,
    "2026-01-01",
  )

  it("replaces the rows of the benchmarks that ran, keeps the others in order, and counts targets again", () => {
    const beta = { ...time, name: "beta figure", met: true }
    const out = updateResults(
      full,
      [
        { bench: "gamma", metrics: [{ ...speed, ours: 90, target: "≥ 1x", met: true }] },
        { bench: "beta", metrics: [beta] },
      ],
      machine,
      "2026-02-02",
    )
    const rows = out.split("\n").filter((l) => /^\| (alpha|beta|gamma) \|/.test(l))
    expect(rows.map((r) => r.split(" | ")[0])).toEqual(["| alpha", "| beta", "| gamma"])
    expect(rows[2]).toContain("| 90 MB/s |")
    expect(out).not.toContain("| 30 MB/s |")
    expect(out).toContain("Targets met: 3 of 3.")
    expect(out).toContain("Rows of gamma, beta updated by `npm run bench -- gamma beta` on 2026-02-02")
    expect(out).toContain("Written by `npm run bench` on 2026-01-01")
  })

  it("keeps the notes of other benchmarks' updates and replaces the notes of the ones that ran again", () => {
    const once = updateResults(full, [{ bench: "gamma", metrics: [speed] }], machine, "2026-02-02")
    const twice = updateResults(once, [{ bench: "alpha", metrics: [time] }], machine, "2026-02-03")
    expect(twice).toContain("Rows of gamma updated by `npm run bench -- gamma` on 2026-02-02")
    expect(twice).toContain("Rows of alpha updated by `npm run bench -- alpha` on 2026-02-03")
    const again = updateResults(twice, [{ bench: "gamma", metrics: [speed] }], machine, "2026-02-04")
    expect(again).not.toContain("on 2026-02-02")
    expect(again).toContain("Rows of gamma updated by `npm run bench -- gamma` on 2026-02-04")
    expect(again).toContain("Rows of alpha updated by `npm run bench -- alpha` on 2026-02-03")
  })

  it("writes the whole file when there is no table yet, and lists a failed benchmark", () => {
    expect(updateResults("", [{ bench: "alpha", metrics: [time] }], machine, "2026-02-02")).toBe(
      resultsMarkdown([{ bench: "alpha", metrics: [time] }], machine, "2026-02-02"),
    )
    const out = updateResults(full, [{ bench: "alpha", metrics: [], error: "boom" }], machine, "2026-02-02")
    expect(out).toContain("- alpha: boom")
    expect(out).not.toMatch(/^\| alpha \|/m)
  })
})
