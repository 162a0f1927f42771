/**
 * `toolwright run FILE.jsonl`: a script of tool calls run in ONE session, one line after another,
 * so state carries over (read a file, then edit it). Each line is a call,
 * `{"name": "read_file", "args": {"file_path": "a.txt"}}`, or an array of calls that run as one
 * batch (like the parallel calls of one model step). Blank lines and lines starting with `#` are
 * skipped. The script stops at the first failed or cancelled call unless `--keep-going`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Schema from "effect/Schema"
import { Argument, Command, Flag } from "effect/cli"
import type { ApprovalMode, ToolCall } from "../run/index.js"
import type { CallResult } from "../tool/index.js"
import { exitFor, personFlags, printResult, readStdin, type SessionFlags, usageError, withCliSession } from "./call.js"

/** One step of a script: the calls of one line (one batch). @category models */
export interface ScriptStep {
  /** 1-based line number in the file. */
  readonly line: number
  readonly calls: ReadonlyArray<ToolCall>
}

const ScriptCall = Schema.Struct({
  name: Schema.String.check(Schema.isNonEmpty()),
  args: Schema.optionalKey(Schema.Unknown),
  arguments: Schema.optionalKey(Schema.Unknown),
  id: Schema.optionalKey(Schema.String)
})
const decodeCall = Schema.decodeUnknownResult(ScriptCall)

const SHAPE = `{"name": "read_file", "args": {"file_path": "a.txt"}}`

/**
 * Parses a JSONL script. Every line is checked before anything runs; the first bad line is
 * reported with its number.
 *
 * @category parsing
 */
export const parseScript = (text: string): { readonly ok: true; readonly steps: ReadonlyArray<ScriptStep> } | { readonly ok: false; readonly message: string } => {
  const steps: Array<ScriptStep> = []
  const lines = text.split(/\r?\n/)
  for (const [i, raw] of lines.entries()) {
    const line = i + 1
    const trimmed = raw.trim()
    if (trimmed === "" || trimmed.startsWith("#")) continue
    let value: unknown
    try {
      value = JSON.parse(trimmed)
    } catch (error) {
      return { ok: false, message: `line ${line}: not valid JSON (${(error as Error).message}). Each line is one call, like ${SHAPE}` }
    }
    const entries = Array.isArray(value) ? value : [value]
    if (entries.length === 0) return { ok: false, message: `line ${line}: an empty array has no calls` }
    const calls: Array<ToolCall> = []
    for (const [j, entry] of entries.entries()) {
      const decoded = decodeCall(entry, { onExcessProperty: "error" })
      if (decoded._tag === "Failure") {
        return { ok: false, message: `line ${line}${Array.isArray(value) ? `, call ${j + 1}` : ""}: expected ${SHAPE} (${decoded.failure.message.replace(/\n\s*/g, " ")})` }
      }
      const call = decoded.success
      if (call.args !== undefined && call.arguments !== undefined) {
        return { ok: false, message: `line ${line}: give "args" or "arguments", not both` }
      }
      const id = call.id ?? (Array.isArray(value) ? `${line}.${j + 1}` : `${line}`)
      calls.push({ callId: id, name: call.name, args: call.args ?? call.arguments ?? {} })
    }
    steps.push({ line, calls })
  }
  if (steps.length === 0) return { ok: false, message: `the script has no calls. Each line is one call, like ${SHAPE}` }
  return { ok: true, steps }
}

/**
 * Builds `toolwright run` over the session flags of the command tree.
 *
 * @category commands
 */
export const makeRunCommand = <const F extends Command.Command.Config>(shared: SessionFlags<F>) =>
  Command.make("run", {
    session: shared.flags,
    ...personFlags,
    "keep-going": Flag.Boolean("keep-going").pipe(
      Flag.withDescription("Run the rest of the script after a call fails or is cancelled (the exit code is still 1)."),
      Flag.withDefault(false)
    ),
    file: Argument.String("file").pipe(Argument.withDescription("The JSONL script, or - to read it from stdin."))
  }, Effect.fn("cli.run")(function*(flags) {
    const options = yield* shared.toOptions(flags.session).pipe(
      Effect.catch((e) => usageError(e.message))
    )
    const stdinTaken = flags.file === "-"
    const text = stdinTaken
      ? yield* readStdin
      : yield* Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        return yield* fs.readFileString(flags.file)
      }).pipe(Effect.catch((e) => usageError(`cannot read the script ${flags.file}: ${e.message}`)))
    const parsed = parseScript(text)
    if (!parsed.ok) return yield* usageError(`${flags.file}: ${parsed.message}`)
    const total = parsed.steps.reduce((n, s) => n + s.calls.length, 0)
    const results = yield* withCliSession(
      { options, mode: flags.approval as ApprovalMode, yes: flags.yes, json: flags.json, stdinTaken },
      (runBatch, printer) =>
        Effect.gen(function*() {
          const all: Array<CallResult> = []
          for (const step of parsed.steps) {
            const batch = yield* runBatch(step.calls)
            for (const result of batch.results) {
              all.push(result)
              yield* printResult(printer, result, `[${all.length}/${total}] line ${step.line}`)
            }
            if (!flags["keep-going"] && batch.results.some((r) => r._tag !== "Success")) break
          }
          return all
        })
    )
    return yield* exitFor(results)
  })).pipe(
    Command.withDescription(
      "Run a JSONL script of tool calls in one session (so a read and then an edit work), printing one result after another. " +
        "A line is one call or an array of calls run as one batch; # starts a comment. Stops at the first failure unless --keep-going."
    ),
    Command.withExamples([
      { command: "toolwright run fix.jsonl", description: `Run the calls of fix.jsonl, e.g. a line ${SHAPE}` },
      { command: "toolwright run fix.jsonl --yes --json", description: "Approve what needs approval; one JSON result per line" },
      { command: "toolwright run - --yes < fix.jsonl", description: "The script from stdin (nobody to ask, so --yes)" },
      { command: "toolwright run checks.jsonl --keep-going --approval plan", description: "Read-only calls only; run them all" }
    ])
  )
