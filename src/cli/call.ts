/**
 * `toolwright call TOOL 'JSON'`: one call in a fresh session, shown to a person (a coloured diff
 * for an edit, the todo list as a checklist, a spinner while a long command prints) or as JSON.
 * Also the machinery `run` shares: the terminal approver, the CLI session, exit codes.
 *
 * Exit codes: 0 every call succeeded; 1 a call failed or was cancelled (the wire code and message
 * are printed); 2 the command itself could not run (bad JSON, bad script, bad flags or config).
 *
 * @since 0.1.0
 */
import * as readline from "node:readline"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import { Argument, Command, Flag } from "effect/cli"
import {
  type ApprovalMode,
  Approver,
  type BatchResult,
  Scheduler,
  type SessionInitError,
  SessionLayer,
  type ToolCall
} from "../run/index.js"
import type { NamedSessionError } from "../session/index.js"
import type { CallResult, ConfirmationOutcome, LiveOutput } from "../tool/index.js"
import {
  colorEnabled,
  makeSpinner,
  noSpinner,
  renderApproval,
  renderHeader,
  renderProblem,
  renderSuccessBody,
  resultToJson,
  type Spinner
} from "./render.js"
import { editProposal } from "./editor.js"

/** Ends the CLI with an exit code; the message was already printed. @category errors */
export class CliExit extends Data.TaggedError("CliExit")<{ readonly exitCode: number }> {
  override readonly [Runtime.errorExitCode] = this.exitCode
  override readonly [Runtime.errorReported] = false
}

/** Exit code when a call failed or was cancelled. @category constants */
export const EXIT_CALL_FAILED = 1
/** Exit code when the command could not run (bad input, bad config). @category constants */
export const EXIT_USAGE = 2

/** The reason a call is refused when nobody can be asked and `--yes` was not given. @category constants */
export const NO_TERMINAL_REASON =
  "toolwright could not ask for approval because stdin is not a terminal. Rerun with --yes to approve every call that needs approval, or pick another --approval mode"

/** What the session flags of `serve`/`tools` become, handed to `call` and `run` by the command tree. @category models */
export interface SessionFlags<F extends Command.Command.Config> {
  readonly flags: F
  readonly toOptions: (flags: Command.Command.Config.InferValue<F>) => Effect.Effect<SessionLayer.SessionOptions, { readonly message: string }>
}

/** Flags `call` and `run` share. @category flags */
export const personFlags = {
  json: Flag.Boolean("json").pipe(
    Flag.withDescription("Print each result as one JSON object per line (status, code, message, content, display) instead of for a person."),
    Flag.withDefault(false)
  ),
  yes: Flag.Boolean("yes").pipe(
    Flag.withAlias("y"),
    Flag.withDescription("Approve every call that needs approval without asking (needed when stdin is not a terminal)."),
    Flag.withDefault(false)
  ),
  approval: Flag.Literals("approval", ["plan", "default", "auto-edit", "yolo"]).pipe(
    Flag.withDescription(
      "Approval mode. default: edits and commands that change things are asked on the terminal (or need --yes); auto-edit: edits run, commands are asked; " +
        "yolo: everything inside the workspace runs; plan: nothing that changes files or runs commands."
    ),
    Flag.withDefault("default")
  )
} as const

/** Writes a line to stdout. @category io */
export const out = (text: string) => Effect.sync(() => void process.stdout.write(text.endsWith("\n") ? text : `${text}\n`))
/** Writes a line to stderr. @category io */
export const err = (text: string) => Effect.sync(() => void process.stderr.write(text.endsWith("\n") ? text : `${text}\n`))

/** Prints a usage problem and ends with exit code 2. @category errors */
export const usageError = (message: string) => Effect.andThen(err(`error: ${message}`), Effect.fail(new CliExit({ exitCode: EXIT_USAGE })))

const askLine = (question: string): Effect.Effect<string> =>
  Effect.acquireUseRelease(
    Effect.sync(() => readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true })),
    (rl) =>
      Effect.callback<string>((resume) => {
        rl.on("close", () => resume(Effect.succeed("")))
        // Ctrl-C at the prompt interrupts the program like anywhere else.
        rl.on("SIGINT", () => {
          rl.close()
          process.kill(process.pid, "SIGINT")
        })
        rl.question(question, (answer) => resume(Effect.succeed(answer.trim())))
      }),
    (rl) => Effect.sync(() => rl.close())
  )

const answerQuestions = Effect.fnUntraced(function*(
  questions: ReadonlyArray<{ readonly options: ReadonlyArray<{ readonly label: string }>; readonly multiSelect: boolean }>
) {
  const answers: Record<string, string> = {}
  for (const [i, q] of questions.entries()) {
    const raw = yield* askLine(`Answer ${i + 1}${q.multiSelect ? " (numbers, comma-separated, or text)" : " (number or text)"}: `)
    if (raw === "") continue
    const picks = raw.split(",").map((s) => s.trim())
    const labels = picks.every((p) => /^\d+$/.test(p) && q.options[Number(p) - 1] !== undefined)
      ? picks.map((p) => q.options[Number(p) - 1]!.label)
      : [raw]
    answers[String(i)] = (q.multiSelect ? labels : labels.slice(0, 1)).join(", ")
  }
  return answers
})

/**
 * The CLI's approver: with `--yes` every request is approved; on a terminal the request (a
 * coloured diff, the command) is shown and the person answers y / a (always) / e (edit the
 * proposal in `$VISUAL`/`$EDITOR`, then apply their version once) / N; otherwise the
 * call is refused with {@link NO_TERMINAL_REASON}. `before` runs first (the spinner clears).
 *
 * @category constructors
 */
export const terminalApprover = (options: {
  readonly yes: boolean
  readonly interactive: boolean
  readonly color: boolean
  readonly before?: Effect.Effect<void> | undefined
}): Approver["Service"] =>
  Approver.of({
    confirm: (request) =>
      Effect.gen(function*() {
        if (options.yes) return { _tag: "proceed_once" } as ConfirmationOutcome
        if (!options.interactive) return { _tag: "cancel", reason: NO_TERMINAL_REASON, unasked: true } as ConfirmationOutcome
        if (options.before) yield* options.before
        yield* err(renderApproval(request, options.color))
        if (request.details.type === "ask_user_question") {
          const answers = yield* answerQuestions(request.details.questions)
          return Object.keys(answers).length === 0
            ? { _tag: "cancel", reason: "no answer was given at the terminal" } as ConfirmationOutcome
            : { _tag: "proceed_once", answers } as ConfirmationOutcome
        }
        const d = request.details
        const amendable = d.type === "edit" || d.type === "exec" ? d.amendable : undefined
        const editChoice = amendable === undefined ? "" : `, [e]dit ${amendable.param}`
        while (true) {
          const answer = (yield* askLine(`Allow? [y]es once, [a]lways for ${request.tool.name} in this run${editChoice}, [N]o: `)).toLowerCase()
          if (answer === "y" || answer === "yes") return { _tag: "proceed_once" } as ConfirmationOutcome
          if (answer === "a" || answer === "always") return { _tag: "proceed_always" } as ConfirmationOutcome
          if (amendable === undefined || (answer !== "e" && answer !== "edit")) {
            return { _tag: "cancel", reason: "declined at the terminal" } as ConfirmationOutcome
          }
          // The person rewrites the proposal in their editor; saving a change approves it once.
          const edited = yield* editProposal(amendable, d.type === "edit" ? d.fileName : "command.sh")
          if (edited._tag === "Failed") {
            yield* err(`Could not edit the ${amendable.param}: ${edited.reason}.`)
          } else if (edited.value === amendable.proposal) {
            yield* err(`The ${amendable.param} was not changed.`)
          } else {
            yield* err(`Applying your edited ${amendable.param}.`)
            return { _tag: "proceed_once", amended: { param: amendable.param, value: edited.value } } as ConfirmationOutcome
          }
        }
      })
  })

/** How results are printed. @category models */
export interface Printer {
  readonly json: boolean
  readonly color: boolean
  readonly spinner: Spinner
}

/** Prints one result: for a person (header in scripts, body, problems on stderr) or as a JSON line. @category io */
export const printResult = (printer: Printer, result: CallResult, position?: string) =>
  Effect.gen(function*() {
    yield* printer.spinner.clear
    if (printer.json) return yield* out(JSON.stringify(resultToJson(result)))
    if (result._tag !== "Success") return yield* err(renderProblem(result, printer.color))
    if (position !== undefined) yield* out(renderHeader(result, position, printer.color))
    const body = renderSuccessBody(result, printer.color)
    if (body !== "") yield* out(body)
  })

/** The CLI's session options after `--approval`, and whether a person can be asked. @category models */
export interface CliSession {
  readonly options: SessionLayer.SessionOptions
  readonly mode: ApprovalMode
  readonly yes: boolean
  readonly json: boolean
  /** stdin is taken (a script or params read from `-`): nobody can be asked. */
  readonly stdinTaken: boolean
}

/**
 * Runs batches in one fresh session with the terminal approver and the spinner; `use` receives a
 * function that runs one batch. Session start-up problems are usage errors (exit 2).
 *
 * @category constructors
 */
export const withCliSession = <A, E, R>(
  session: CliSession,
  use: (runBatch: (calls: ReadonlyArray<ToolCall>) => Effect.Effect<BatchResult>, printer: Printer) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const color = !session.json && colorEnabled(process.stdout)
    const spinner = !session.json && process.stderr.isTTY
      ? yield* makeSpinner({ write: (text) => void process.stderr.write(text), columns: process.stderr.columns ?? 80 })
      : noSpinner
    const printer: Printer = { json: session.json, color, spinner }
    const approver = terminalApprover({
      yes: session.yes,
      interactive: !session.stdinTaken && process.stdin.isTTY === true && process.stderr.isTTY === true,
      color: colorEnabled(process.stderr),
      before: spinner.clear
    })
    const layer = SessionLayer.layer({ ...session.options, mode: session.mode }).pipe(Layer.provide(Layer.succeed(Approver, approver)))
    const program = Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const names = new Map<string, string>()
      const runBatch = (calls: ReadonlyArray<ToolCall>) => {
        calls.forEach((c) => names.set(c.callId, c.name))
        const show = (callId: string, chunk: LiveOutput) => spinner.show(names.get(callId) ?? "tool", chunk)
        // A streamed output's text reaches the spinner through the tap on its stream.
        return scheduler.runBatch(calls, {
          onOutput: show,
          onPart: (callId, part) => (part.type === "text" ? show(callId, part.text) : Effect.void)
        }).pipe(
          Effect.ensuring(spinner.clear)
        )
      }
      return yield* use(runBatch, printer)
    })
    const context = yield* Layer.build(layer).pipe(catchSessionProblems)
    return yield* program.pipe(Effect.provideContext(context))
  }).pipe(
    Effect.scoped,
    // Logs (a tool that failed to load, an MCP server that went away) never mix with results on stdout.
    Effect.provideService(Logger.LogToStderr, true)
  )

/**
 * A session that cannot start (bad flags or config, an unknown, expired or unreadable named session)
 * is a usage problem: its message on stderr, exit code 2.
 * @category errors
 */
export const catchSessionProblems = <A, E, R>(
  effect: Effect.Effect<A, E | SessionInitError | NamedSessionError, R>
): Effect.Effect<A, E | CliExit, R> =>
  effect.pipe(Effect.catchIf(
    (e): e is SessionInitError | NamedSessionError =>
      typeof e === "object" && e !== null && "_tag" in e && SESSION_PROBLEMS.has((e as { _tag: string })._tag),
    (e) => usageError("code" in e ? `${e.code}: ${e.message}` : e.message)
  )) as Effect.Effect<A, E | CliExit, R>

const SESSION_PROBLEMS = new Set(["SessionInitError", "SessionNotFound", "SessionExpired", "SessionStoreFailed"])

/** Reads all of stdin as text. @category io */
export const readStdin: Effect.Effect<string, CliExit> = Effect.tryPromise({
  try: async () => {
    const chunks: Array<Buffer> = []
    for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)))
    return Buffer.concat(chunks).toString("utf8")
  },
  catch: () => new CliExit({ exitCode: EXIT_USAGE })
})

/** Parses the params of `call`: a JSON value (an object for every built-in tool). @category parsing */
export const parseParams = (raw: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string } => {
  try {
    return { ok: true, value: JSON.parse(raw) }
  } catch (error) {
    return { ok: false, message: `the params are not valid JSON (${(error as Error).message}). Quote them for the shell: toolwright call read_file '{"file_path": "README.md"}'` }
  }
}

/** The exit code of a set of results: 0 when all succeeded, else 1. @category io */
export const exitFor = (results: ReadonlyArray<CallResult>): Effect.Effect<void, CliExit> =>
  results.every((r) => r._tag === "Success") ? Effect.void : Effect.fail(new CliExit({ exitCode: EXIT_CALL_FAILED }))

/**
 * Builds `toolwright call` over the session flags of the command tree.
 *
 * @category commands
 */
export const makeCallCommand = <const F extends Command.Command.Config>(shared: SessionFlags<F>) =>
  Command.make("call", {
    session: shared.flags,
    ...personFlags,
    tool: Argument.String("tool").pipe(Argument.withDescription("The tool to call, e.g. read_file (see `toolwright tools`).")),
    params: Argument.String("params").pipe(
      Argument.withDescription("Its params as a JSON object (quote it for the shell), or - to read them from stdin. Default {}."),
      Argument.optional
    )
  }, Effect.fn("cli.call")(function*(flags) {
    const options = yield* shared.toOptions(flags.session).pipe(
      Effect.catch((e) => usageError(e.message))
    )
    const raw = Option.getOrElse(flags.params, () => "{}")
    const stdinTaken = raw === "-"
    const parsed = parseParams(stdinTaken ? yield* readStdin : raw)
    if (!parsed.ok) return yield* usageError(parsed.message)
    const result = yield* withCliSession(
      { options, mode: flags.approval as ApprovalMode, yes: flags.yes, json: flags.json, stdinTaken },
      (runBatch, printer) =>
        Effect.gen(function*() {
          const batch = yield* runBatch([{ callId: "1", name: flags.tool, args: parsed.value }])
          const result = batch.results[0]!
          yield* printResult(printer, result)
          return result
        })
    )
    return yield* exitFor([result])
  })).pipe(
    Command.withDescription(
      "Call one tool in a fresh session and print its result: a coloured diff for an edit, the todo list as a checklist, command output with a spinner while it runs. " +
        "A failure prints its wire code and message and exits 1."
    ),
    Command.withExamples([
      { command: `toolwright call read_file '{"file_path": "README.md"}'`, description: "Read a file of the current directory" },
      { command: `toolwright call grep_search '{"pattern": "TODO", "path": "src"}' --json`, description: "Search, as one JSON object" },
      { command: `toolwright call run_shell_command '{"command": "npm test"}' --yes`, description: "Run a command without being asked" },
      { command: `echo '{"file_path": "a.txt", "content": "hi"}' | toolwright call write_file - --yes`, description: "Params from stdin" }
    ])
  )
