/**
 * Shared helpers of the shell tests: a host over a fresh session, settings overrides, and
 * process liveness checks.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { DEFAULT_SHELL_SETTINGS, ShellConfig, type ShellSettings } from "../../src/shell/config.js"
import { ProcessHost } from "../../src/shell/terminal/host.js"
import { isAlive } from "../../src/process/tree.js"
import { SandboxConfig, type SandboxOptions } from "../../src/process/sandbox.js"
import { Session } from "../../src/session/session.js"
import { makeRecordingApprover, Approver } from "../../src/run/approver.js"
import type { ApprovalMode, PermissionRule } from "../../src/run/policy.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import { Scheduler } from "../../src/run/scheduler.js"
import type { CallResult } from "../../src/tool/outcome.js"
import type { ConfirmationOutcome } from "../../src/tool/permission.js"
import { llmText } from "../../src/tool/result.js"
import { DEFAULT_FILE_TOOLS_SETTINGS, FileToolsConfig, type FileToolsSettings } from "../../src/write/config.js"

/** A temp dir (real path). */
export const makeDir = (prefix = "tw-shell-") => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))

/** Settings with overrides. */
export const settings = (overrides: Partial<ShellSettings> = {}): ShellSettings => ({ ...DEFAULT_SHELL_SETTINGS, ...overrides })

/** A ProcessHost over a fresh session, with the given settings (and sandbox options; default: the sandbox's defaults). */
export const hostLayer = (overrides: Partial<ShellSettings> = {}, sandbox: SandboxOptions = {}): Layer.Layer<ProcessHost | Session> =>
  ProcessHost.layer.pipe(
    Layer.provideMerge(Session.layer),
    Layer.provide(Layer.succeed(ShellConfig, settings(overrides))),
    Layer.provide(Layer.succeed(SandboxConfig, sandbox))
  )

/**
 * The sandbox off: for tests that read process ids a command wrote itself (`echo $$`); inside the
 * sandbox's pid namespace those are not the host's ids (test/security/sandbox.test.ts checks the
 * sandboxed process trees from the host).
 */
export const UNSANDBOXED: SandboxOptions = { mode: "off" }

/** Polls until `check` holds (max `ms`). */
export const eventually = (check: () => boolean, ms = 10_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + ms
    while (!check()) {
      if (Date.now() > deadline) return false
      yield* Effect.sleep("20 millis")
    }
    return true
  })

/** The PIDs written one per line to a file, once it has `count` of them. */
export const readPids = (file: string, count: number) =>
  Effect.gen(function*() {
    const ok = yield* eventually(() => fs.existsSync(file) && fs.readFileSync(file, "utf8").trim().split(/\s+/).filter(Boolean).length >= count)
    if (!ok) return yield* Effect.die(new Error(`pid file ${file} never got ${count} pids: ${fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "(missing)"}`))
    return fs.readFileSync(file, "utf8").trim().split(/\s+/).filter(Boolean).map(Number)
  })

/** The PIDs still alive (zombies count as dead). */
export const survivors = (pids: ReadonlyArray<number>) => pids.filter(isAlive)

/** Whether node-pty loads in this runtime. */
export const ptyLoads = (): boolean => {
  try {
    createRequire(import.meta.url)("node-pty")
    return true
  } catch {
    return false
  }
}

/**
 * A script that forks a tree and writes every PID to the file given as $1 (7 PIDs): a child that
 * ignores SIGTERM, a nested child/grandchild, a grandchild that calls setsid, and a double-forked
 * daemon (setsid, re-parented, ignoring SIGTERM) that the tree walk cannot see.
 */
export const TREE_SCRIPT = `out="$1"
echo $$ >> "$out"
( trap '' TERM; echo $BASHPID >> "$out"; exec sleep 1000 ) &
( echo $BASHPID >> "$out"; ( echo $BASHPID >> "$out"; exec sleep 1000 ) & wait ) &
( echo $BASHPID >> "$out"; setsid bash -c 'echo $$ >> "$0"; exec sleep 1000' "$out" & wait ) &
( ( setsid bash -c 'trap "" TERM; echo $$ >> "$0"; exec sleep 1000' "$out" & ) ) &
wait
`
/** PIDs the tree script writes. */
export const TREE_PIDS = 7


/** The shell tools as factories. */
export const shellFactories = [
  { name: "run_shell_command", load: Effect.flatMap(Effect.promise(() => import("../../src/shell/command/runShellCommand.js")), (m) => m.makeRunShellCommand) },
  { name: "task_stop", load: Effect.flatMap(Effect.promise(() => import("../../src/shell/background/taskStop.js")), (m) => m.makeTaskStop) },
  { name: "send_message", load: Effect.flatMap(Effect.promise(() => import("../../src/shell/background/sendMessage.js")), (m) => m.makeSendMessage) }
]

/** A session over a fresh root with only the shell tools, a recording approver and shell settings. */
export const shellSession = (options: {
  readonly settings?: Partial<ShellSettings>
  readonly answers?: ReadonlyArray<ConfirmationOutcome>
  readonly fallback?: ConfirmationOutcome
  readonly mode?: ApprovalMode
  readonly rules?: ReadonlyArray<PermissionRule>
  readonly root?: string
  /** Runs when the approver is asked, before it answers. */
  readonly onAsk?: () => void
  readonly sandbox?: SandboxOptions
  readonly outputLimits?: SessionLayer.SessionOptions["outputLimits"]
  /** Settings of the mutation path (a `sed -i` run as an edit uses them). */
  readonly fileTools?: Partial<FileToolsSettings>
} = {}) =>
  Effect.gen(function*() {
    const root = options.root ?? makeDir("tw-root-")
    const stateDir = makeDir("tw-state-")
    const recording = yield* makeRecordingApprover(options.answers ?? [], options.fallback ?? { _tag: "proceed_once" })
    const layer = SessionLayer.layer({
      builtins: false,
      roots: [root],
      stateDir,
      tools: shellFactories,
      ...(options.mode ? { mode: options.mode } : {}),
      ...(options.rules ? { rules: options.rules } : {}),
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      ...(options.outputLimits ? { outputLimits: options.outputLimits } : {})
    }).pipe(
      Layer.provide(Layer.succeed(Approver, Approver.of({
        confirm: (request) => Effect.andThen(Effect.sync(() => options.onAsk?.()), recording.approver.confirm(request))
      }))),
      Layer.provide(Layer.succeed(ShellConfig, settings(options.settings))),
      Layer.provide(Layer.succeed(FileToolsConfig, { ...DEFAULT_FILE_TOOLS_SETTINGS, ...options.fileTools }))
    )
    return { root, stateDir, layer, requests: recording.requests }
  })

/** Runs one call through the scheduler. */
export const call = (name: string, args: unknown) =>
  Effect.gen(function*() {
    const scheduler = yield* Scheduler
    return yield* scheduler.runOne({ callId: `c-${Math.random().toString(16).slice(2)}`, name, args })
  })

/** The model-facing text of a result (success text, failure or cancel message). */
export const textOf = (r: CallResult): string => (r._tag === "Success" ? llmText(r.llmContent) : r.message)

/** The wire code of a failure, or the tag. */
export const codeOf = (r: CallResult): string => (r._tag === "Failure" ? r.code : r._tag)

/** Runs `body` inside a fresh shell session (closed afterwards). */
export const withSession = <A, E, R>(
  options: Parameters<typeof shellSession>[0],
  body: (s: { readonly root: string; readonly stateDir: string; readonly requests: Effect.Effect<ReadonlyArray<import("../../src/run/approver.js").ApprovalRequest>> }) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const s = yield* shellSession(options)
    return yield* body(s).pipe(Effect.provide(s.layer))
  })
