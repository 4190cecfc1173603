import { createReadStream } from "node:fs"
import { readFile } from "node:fs/promises"
import { isAbsolute, resolve } from "node:path"
import { Command, Option } from "commander"
import { FileError, PromptlineError } from "../errors.js"
import { fsProblem } from "../fs-problem.js"
import { parseJsonDocument } from "../json.js"
import type { WireFormat } from "../models/types.js"
import type { AssembledResponse } from "../providers/accumulate.js"
import type { RecordingShape } from "../providers/decode.js"
import { wireFormats } from "../providers/descriptors.js"
import type { DecodeStats, StreamEvent } from "../providers/stream.js"
import type { CommandFactory } from "./main.js"
import { printJson } from "./print.js"

interface DecodeFlags {
  format?: WireFormat
  events?: boolean
  model?: string
  ts: string
  shape?: RecordingShape
}

/**
 * `promptline decode FILE`: decodes a recorded response (raw SSE, one JSON payload per line, or one
 * non-streamed JSON body) in the wire format its payloads show (or `--format F`) and prints the assembled
 * message, usage and stop reason, or with `--events` the normalized stream events, one JSON object per
 * line. Exits 1 when a response did not complete; a `--format` that the payloads contradict is named.
 */
export const decodeCommand: CommandFactory = (io, setExit) =>
  new Command("decode")
    .description("decode a recorded provider stream into stream events or the assembled message")
    .argument("<file>", "the recording: raw SSE, one JSON payload per line, or a whole JSON response body")
    .addOption(
      new Option("--format <format>", "wire format of the recording (default: detected from its payloads)").choices(
        wireFormats(),
      ),
    )
    .option("--events", "print the stream events (JSON lines) instead of the assembled message")
    .option("--model <id>", "model id recorded on thinking blocks and signed tool calls")
    .addOption(
      new Option("--ts <ms>", "timestamp of the assembled message, in milliseconds since the epoch").default("0", "0"),
    )
    .addOption(
      new Option("--shape <shape>", "how the file is written (default: guessed)").choices([
        "sse",
        "json-lines",
        "json",
      ]),
    )
    .action(async (file: string, flags: DecodeFlags) => {
      const path = isAbsolute(file) ? file : resolve(io.cwd, file)
      let text: string
      try {
        text = await readFile(path, "utf8")
      } catch (error) {
        throw new FileError("file-unreadable", file, `cannot read the recording: ${fsProblem(error)}`, {
          cause: error,
        })
      }
      const ts = Number(flags.ts)
      if (!Number.isFinite(ts))
        throw new PromptlineError("invalid-option", `--ts must be a number (got ${JSON.stringify(flags.ts)})`)
      const { recordingShape } = await import("../providers/decode.js")
      const { detectFormat } = await import("../providers/detect.js")
      const guess = detectFormat(text)
      const format = flags.format ?? guess?.format
      if (!format)
        throw new FileError(
          "format-unknown",
          file,
          `no wire format could be detected: no payload has a provider's marks (${describeStart(text)}); pass --format`,
        )
      const shape = flags.shape ?? recordingShape(text)
      const { events, stats } = await decodeFile(format, shape, path, text)
      if (flags.events) {
        io.stdout(events.map((e) => `${JSON.stringify(e)}\n`).join(""))
      } else {
        const { Accumulator } = await import("../providers/accumulate.js")
        const acc = new Accumulator({ ts, model: flags.model })
        for (const e of events) acc.push(e)
        const responses: AssembledResponse[] = acc.finish().map((r) => (stats ? { ...r, stats } : r))
        printJson(io, responses.length === 1 ? responses[0] : responses)
      }
      const stops = events.filter((e) => e.type === "stop")
      const failed = stops.length === 0 || stops.some((e) => e.type === "stop" && e.reason === "error")
      if (failed) setExit(1)
      if (guess && flags.format && guess.format !== flags.format)
        io.stderr(
          `promptline: the recording looks like ${guess.format} (${guess.evidence}), not ${flags.format}; ` +
            `drop --format to decode it as ${guess.format}\n`,
        )
    })

/** The first characters of a recording, for an error message. */
function describeStart(text: string): string {
  const start = text.trim().slice(0, 60).replace(/\s+/g, " ")
  return start === "" ? "the file is empty" : `it starts with ${JSON.stringify(start)}`
}

async function decodeFile(
  format: WireFormat,
  shape: RecordingShape,
  path: string,
  text: string,
): Promise<{ events: StreamEvent[]; stats?: DecodeStats }> {
  const { decodePayloadLines, responseBodyEvents, StreamDecoder } = await import("../providers/decode.js")
  if (shape === "json-lines") return decodePayloadLines(format, text)
  if (shape === "json") {
    // A syntax error names its line and column in plain words (FileError invalid-json).
    return { events: responseBodyEvents(format, parseJsonDocument(text, path)) }
  }
  // Raw SSE is read as a stream, the way a response body arrives.
  const decoder = new StreamDecoder(format)
  const events: StreamEvent[] = []
  for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 })) decoder.feed(chunk as Buffer, events)
  decoder.end(events)
  return { events, stats: decoder.stats }
}
