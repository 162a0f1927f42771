/**
 * How the `toolwright` CLI shows things to a person: coloured unified diffs for edits, the todo
 * list as a checklist, terminal output with its colours, failures with their wire code, approval
 * prompts, a spinner while a long command prints; and the JSON shape for `--json`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Semaphore from "effect/Semaphore"
import type { ApprovalRequest } from "../run/index.js"
import {
  type CallResult,
  CANCELLED_CODE,
  type Display,
  type FileDiffDisplay,
  resourceLinkText,
  type TodoListDisplay
} from "../tool/index.js"

/** Whether to write ANSI colours to a stream: `NO_COLOR` wins, then `FORCE_COLOR`, then "is it a terminal". @category rendering */
export const colorEnabled = (
  stream: { readonly isTTY?: boolean | undefined },
  env: Readonly<Record<string, string | undefined>> = process.env
): boolean => {
  if (env["NO_COLOR"] !== undefined && env["NO_COLOR"] !== "") return false
  if (env["FORCE_COLOR"] !== undefined && env["FORCE_COLOR"] !== "") return env["FORCE_COLOR"] !== "0"
  return stream.isTTY === true
}

const sgr = (code: string) => (on: boolean, text: string): string => (on ? `\x1b[${code}m${text}\x1b[0m` : text)
/** ANSI styles that are no-ops when colour is off. @category rendering */
export const style = {
  bold: sgr("1"),
  dim: sgr("2"),
  red: sgr("31"),
  green: sgr("32"),
  yellow: sgr("33"),
  cyan: sgr("36"),
  strike: sgr("9")
} as const

// CSI sequences (colours, cursor moves) and OSC sequences (titles, links).
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g

/** Removes ANSI escape sequences. @category rendering */
export const stripAnsi = (text: string): string => text.replace(ANSI, "")

/** A unified diff with `+` lines green, `-` lines red, hunk headers cyan and file headers bold. @category rendering */
export const renderDiff = (diff: string, color: boolean): string =>
  diff.split("\n").map((line) => {
    if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("Index: ") || line.startsWith("====")) {
      return style.bold(color, line)
    }
    if (line.startsWith("@@")) return style.cyan(color, line)
    if (line.startsWith("+")) return style.green(color, line)
    if (line.startsWith("-")) return style.red(color, line)
    if (line.startsWith("\\")) return style.dim(color, line)
    return line
  }).join("\n")

const fileDiff = (d: FileDiffDisplay, color: boolean): string => {
  const diff = d.diff.endsWith("\n") ? d.diff.slice(0, -1) : d.diff
  return diff === "" ? style.dim(color, `${d.fileName}: no changes`) : renderDiff(diff, color)
}

/** The todo list as a checklist: `[x]` done, `[~]` in progress, `[ ]` pending. @category rendering */
export const renderTodos = (todos: TodoListDisplay["todos"], color: boolean): string => {
  if (todos.length === 0) return style.dim(color, "(no todos)")
  return todos.map((todo) => {
    switch (todo.status) {
      case "completed":
        return `${style.green(color, "[x]")} ${style.dim(color, todo.content)}`
      case "in_progress":
        return `${style.yellow(color, "[~]")} ${style.bold(color, todo.content)}`
      default:
        return `[ ] ${todo.content}`
    }
  }).join("\n")
}

/** A structured display for people; `undefined` for a plain string (the caller shows the result text). @category rendering */
export const renderStructured = (display: Display, color: boolean): string | undefined => {
  if (typeof display === "string") return undefined
  switch (display._tag) {
    case "FileDiff":
      return fileDiff(display, color)
    case "TodoList":
      return renderTodos(display.todos, color)
    case "AnsiOutput":
      return color ? display.ansi : stripAnsi(display.ansi)
  }
}

const bytesOfBase64 = (data: string): number => Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0)

/**
 * The body of a successful call for a person: the structured display (diff, checklist, terminal
 * output) when there is one, else the text the model reads; media as one line each.
 *
 * @category rendering
 */
export const renderSuccessBody = (result: Extract<CallResult, { _tag: "Success" }>, color: boolean): string => {
  const structured = renderStructured(result.display, color)
  if (structured !== undefined) return structured
  const parts = result.llmContent.map((part) =>
    part.type === "text"
      ? part.text
      : part.type === "resource_link"
      ? resourceLinkText(part)
      : style.dim(color, `[${part.type} ${part.mimeType}, ${bytesOfBase64(part.data)} bytes]`)
  )
  const text = parts.join("\n")
  return text === "" && typeof result.display === "string" ? result.display : text
}

/** The one-line summary of a failure or a cancellation: name, wire code, message. @category rendering */
export const renderProblem = (result: Exclude<CallResult, { _tag: "Success" }>, color: boolean): string =>
  result._tag === "Failure"
    ? `${style.red(color, "✗")} ${style.bold(color, result.name)} failed ${style.red(color, `[${result.code}]`)}: ${result.message}`
    : `${style.yellow(color, "⊘")} ${style.bold(color, result.name)} cancelled: ${result.message}`

/** The header line of one call in a `run` script. @category rendering */
export const renderHeader = (result: CallResult, position: string, color: boolean): string => {
  const mark = result._tag === "Success" ? style.green(color, "✓") : result._tag === "Failure" ? style.red(color, "✗") : style.yellow(color, "⊘")
  return `${mark} ${style.bold(color, result.name)} ${style.dim(color, position)}`
}

const jsonSafe = (value: unknown): unknown => {
  try {
    return JSON.parse(JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? v.toString() : v)) ?? "null")
  } catch {
    return null
  }
}

/** What the person changed of an amended call, as `--json` and the serve door report it. @category rendering */
export const userModifiedJson = (result: CallResult) =>
  result._tag !== "Cancelled" && result.userModified !== undefined
    ? { userModified: { param: result.userModified.param, diffStat: result.userModified.diffStat } }
    : {}

/** One result as the JSON object `--json` prints (one per line). @category rendering */
export const resultToJson = (result: CallResult): Record<string, unknown> => {
  switch (result._tag) {
    case "Success":
      return {
        callId: result.callId,
        name: result.name,
        status: "success",
        content: result.llmContent,
        display: result.display,
        resultFilePaths: result.resultFilePaths,
        data: jsonSafe(result.data),
        ...userModifiedJson(result)
      }
    case "Failure":
      return { callId: result.callId, name: result.name, status: "failure", code: result.code, message: result.message, ...userModifiedJson(result) }
    case "Cancelled":
      return { callId: result.callId, name: result.name, status: "cancelled", code: CANCELLED_CODE, message: result.message }
  }
}

/** What a person is shown before approving a call. @category rendering */
export const renderApproval = (request: ApprovalRequest, color: boolean): string => {
  const d = request.details
  const touches = request.locations !== undefined && request.locations.length > 0
    ? `\n  ${style.dim(color, `touches ${request.locations.join(", ")}`)}`
    : ""
  const head = `${style.yellow(color, "?")} ${style.bold(color, d.title)}\n  ${request.description}${touches}`
  switch (d.type) {
    case "edit":
      return `${head}\n${fileDiff({ _tag: "FileDiff", fileName: d.fileName, diff: d.fileDiff, originalContent: d.originalContent, newContent: d.newContent }, color)}`
    case "exec":
      return `${head}\n  ${style.cyan(color, `$ ${d.command}`)}`
    case "mcp":
      return `${head}\n  tool ${d.toolName} on MCP server ${d.serverName}`
    case "info":
      return d.prompt === request.description ? head : `${head}\n  ${d.prompt}`
    case "ask_user_question":
      return [
        head,
        ...d.questions.map((q, i) =>
          [
            `  ${style.bold(color, q.header || `Question ${i + 1}`)}: ${q.question}${q.multiSelect ? style.dim(color, " (several: 1,3)") : ""}`,
            ...q.options.map((o, j) => `    ${j + 1}. ${o.label}${o.description ? style.dim(color, ` — ${o.description}`) : ""}`)
          ].join("\n")
        )
      ].join("\n")
  }
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

/** A terminal line writer the spinner draws on. @category models */
export interface SpinnerTarget {
  readonly write: (text: string) => void
  readonly columns: number
}

/** The spinner over live output: `show` on each chunk, `clear` before anything else is printed. @category models */
export interface Spinner {
  readonly show: (name: string, chunk: Display) => Effect.Effect<void>
  readonly clear: Effect.Effect<void>
}

const lastLine = (chunk: Display): string => {
  const text = typeof chunk === "string" ? chunk : chunk._tag === "AnsiOutput" ? stripAnsi(chunk.ansi) : ""
  const lines = text.split(/\r?\n/).map((l) => l.trimEnd()).filter((l) => l !== "")
  return lines[lines.length - 1] ?? ""
}

/** The spinner line: frame, tool, elapsed seconds, the last line of output, cut to the width. @category rendering */
export const spinnerLine = (frame: number, name: string, elapsedMs: number, last: string, columns: number): string => {
  const head = `${FRAMES[frame % FRAMES.length]} ${name} ${(elapsedMs / 1000).toFixed(1)}s`
  // " · " plus one free column: a line that fills the last column may wrap on some terminals.
  const room = Math.max(0, columns - head.length - 4)
  const tail = last.length > room ? `${last.slice(0, Math.max(0, room - 1))}…` : last
  return tail === "" ? head : `${head} · ${tail}`
}

/**
 * A spinner on a terminal line while a call prints live output (a long shell command): it starts
 * with the first chunk, redraws every 80 ms with the elapsed time and the last line, and is
 * cleared before results or prompts are printed. The ticking fiber ends with the scope.
 *
 * @category constructors
 */
export const makeSpinner = Effect.fnUntraced(function*(target: SpinnerTarget) {
  const state = yield* Ref.make<{ readonly name: string; readonly started: number; readonly last: string } | undefined>(undefined)
  const frame = yield* Ref.make(0)
  // A draw and a clear never interleave: a cleared line stays clear.
  const lock = yield* Semaphore.make(1)
  const draw = Effect.gen(function*() {
    const current = yield* Ref.get(state)
    if (current === undefined) return
    const n = yield* Ref.getAndUpdate(frame, (f) => f + 1)
    const line = spinnerLine(n, current.name, Date.now() - current.started, current.last, target.columns)
    yield* Effect.sync(() => target.write(`\r\x1b[2K${line}`))
  }).pipe(Semaphore.withPermit(lock))
  yield* Effect.forkScoped(Effect.repeat(draw, Schedule.spaced("80 millis")))
  const show = (name: string, chunk: Display) =>
    Ref.update(state, (s) => {
      const last = lastLine(chunk)
      return s === undefined || s.name !== name
        ? { name, started: Date.now(), last }
        : { ...s, last: last === "" ? s.last : last }
    })
  const clear = Effect.gen(function*() {
    const was = yield* Ref.getAndSet(state, undefined)
    if (was !== undefined) yield* Effect.sync(() => target.write("\r\x1b[2K"))
  }).pipe(Semaphore.withPermit(lock))
  return { show, clear } satisfies Spinner
})

/** A spinner that draws nothing (not a terminal, or `--json`). @category constructors */
export const noSpinner: Spinner = { show: () => Effect.void, clear: Effect.void }
