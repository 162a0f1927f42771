/**
 * `ProcessHost`: where a session's commands run. A foreground command gets a PTY (node-pty, its
 * screen rendered by `@xterm/headless`) or, when node-pty cannot load or is turned off, pipes;
 * its output is captured with bounded memory, streamed to the caller at most once per interval,
 * and its whole process tree is killed on timeout or interruption. Background commands always
 * use pipes (stdin stays open for `send_message`).
 *
 * Every command runs in the session's command sandbox (`process/sandbox.ts`; bubblewrap on Linux)
 * unless the sandbox is off or a person approved one unsandboxed run, with an environment built by
 * the environment policy (`process/environment.ts`), and, sandboxed, a private TMPDIR. Unconfined
 * commands are watched by the orphan guard, so that they die even if the server is SIGKILLed.
 *
 * Every process carries the session's tag in its environment; when the session's scope closes,
 * every tagged process still alive is killed (on Linux, re-parented daemons included).
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import {
  confine,
  findTaggedPids,
  inheritedEnvironment,
  killProcessTree,
  type LauncherName,
  type OrphanGuard,
  sandboxCheck,
  PROCESS_TAG_VARIABLE,
  SandboxConfig,
  type SandboxMode,
  type SandboxScope,
  type SandboxSettings,
  sandboxSettingsOrDefault,
  signalPids,
  startOrphanGuard,
  gatedLaunch,
  withLaunchWaits
} from "../../process/index.js"
import { Session, Workspace } from "../../session/index.js"
import type { LaunchQueueTimeout, LiveOutput, SandboxUnavailable } from "../../tool/index.js"
import { type CaptureLimits, type CapturedOutput, OutputCapture, type SpillBudget } from "./capture.js"
import { settingsInEffect, ShellConfig, type ShellSettings } from "../config.js"
import { Screen } from "./screen.js"
import { runWaitsOnTerminal } from "./ttyWait.js"
import { type Backend, type ExitInfo, loadNodePty, spawnPiped, spawnPty, type Spawned } from "./spawn.js"

/** The backend foreground commands use, and why it is not the PTY when it is not. @category models */
export interface BackendInfo {
  readonly backend: Backend
  readonly reason?: string | undefined
}

/** A foreground command to run. @category models */
export interface RunRequest {
  readonly command: string
  readonly cwd: string
  /** Milliseconds; 0 or less means no timeout. */
  readonly timeoutMs: number
  /** Directory for the spill file of a large output (created 0700 when needed). */
  readonly spillDir: string
  /** The session's disk budget the spill file draws on. */
  readonly spillBudget?: SpillBudget | undefined
  /** Live output, at most once per `liveIntervalMs` (ANSI for a PTY, plain text otherwise). */
  readonly onOutput?: ((chunk: LiveOutput) => Effect.Effect<void>) | undefined
  /**
   * New output text as it comes (plain text, whole lines), coalesced: at most once per
   * {@link LIVE_TEXT_INTERVAL_MS}, at most `LIVE_TEXT_CHARS` per call (older text in between is
   * skipped and marked with `…`; the capture itself keeps everything).
   */
  readonly onLiveText?: ((text: string) => Effect.Effect<void>) | undefined
  /** Run this one command outside the sandbox (a person approved it). */
  readonly unsandboxed?: boolean | undefined
  /**
   * Hand the running command off instead of waiting (see {@link Handoff}): after `idleMs` without
   * output while it waits on its terminal (PTY only; see ./ttyWait.ts), or after `wallMs` in all.
   * 0 turns either off.
   */
  readonly autoBackground?: { readonly idleMs: number; readonly wallMs: number } | undefined
}

/** The shortest time between two `onLiveText` calls of one command. @category constants */
export const LIVE_TEXT_INTERVAL_MS = 50
/**
 * A foreground command still running, handed to the caller (who moves it to the background
 * shells): it is no longer killed when the run ends. Output from now on goes to the sink given to
 * `attach` (what came in between is replayed first).
 *
 * @category models
 */
export interface Handoff {
  /** `input`: it waits on its terminal; `wall`: it passed the wall time. */
  readonly reason: "input" | "wall"
  readonly proc: StartedProcess
  readonly attach: (sink: (chunk: Buffer) => void) => void
}

/** How often a foreground command is checked for a hand-off. @category constants */
export const AUTO_BACKGROUND_POLL_MS = 250

/** How a foreground command ended. @category models */
export interface RunResult extends ExitInfo {
  readonly backend: Backend
  /** What started the process: the posix_spawn addon, or child_process / node-pty. */
  readonly launcher: LauncherName
  /** Why the PTY was not used, when it was not. */
  readonly fallbackReason?: string | undefined
  readonly pid: number | undefined
  readonly timedOut: boolean
  readonly output: CapturedOutput
  /** The PTY screen as ANSI text (PTY only, and only when the output is more than plain text). */
  readonly ansi?: string | undefined
  readonly elapsedMs: number
  /** The sandbox the command ran in (`off`: none). */
  readonly sandbox: SandboxMode
  /** What the sandbox let it write (to explain what it blocked). */
  readonly sandboxScope: SandboxScope
  /** Set when the command was handed off still running (its exit fields are then null). */
  readonly handoff?: Handoff | undefined
  /** Time its launches (the command, and the one-time sandbox check or orphan guard) waited at the launch gate (ms; absent when none waited). */
  readonly launchWaitMs?: number | undefined
}

/** A background process as the registry holds it. @category models */
export interface StartedProcess extends Spawned {
  /** The environment tag of this process tree. */
  readonly tag: string
}

/** A background command to start. @category models */
export interface StartRequest {
  readonly command: string
  readonly cwd: string
  readonly onData: (chunk: Buffer) => void
  /** Run this one command outside the sandbox (a person approved it). */
  readonly unsandboxed?: boolean | undefined
}

/** The live message while binary output streams. @category constants */
export const BINARY_DETECTED_MESSAGE = "[Binary output detected. Halting stream...]"

/** Human-readable byte size (`1.5 MB`). @category formatting */
export const formatBytes = (bytes: number): string => {
  if (bytes < 1024) return `${bytes} B`
  const units = ["KB", "MB", "GB", "TB"]
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(value >= 10 ? 0 : 1)} ${units[unit]}`
}

/** Types of the {@link ProcessHost} service. @category models */
export declare namespace ProcessHost {
  /** The service shape. */
  export interface Service {
    readonly settings: ShellSettings
    /** The sandbox commands run in. */
    readonly sandbox: SandboxSettings
    /** The session's process tag (every process carries it, suffixed per run). */
    readonly sessionTag: string
    /** Which backend foreground commands get (probed once). */
    readonly backend: Effect.Effect<BackendInfo>
    /**
     * Runs a foreground command to its end, timeout or interruption (which kills its tree). Its
     * process waits its turn at the launch gate first; the timeout starts once it is spawned.
     */
    readonly run: (request: RunRequest) => Effect.Effect<RunResult, SandboxUnavailable | LaunchQueueTimeout>
    /** Starts a background command on pipes with stdin open (through the launch gate). */
    readonly start: (request: StartRequest) => Effect.Effect<StartedProcess, SandboxUnavailable | LaunchQueueTimeout>
    /** Kills a process tree (group, descendants, tagged processes). */
    readonly kill: (pid: number | undefined, tag: string) => Effect.Effect<void>
  }
}

/** Where the session's commands run. @category services */
export class ProcessHost extends Context.Service<ProcessHost, ProcessHost.Service>()("toolwright/shell/ProcessHost") {
  /** The host of one session; its scope's end kills every process the session started. */
  static readonly layer: Layer.Layer<ProcessHost, never, Session> = Layer.effect(ProcessHost, Effect.suspend(() => make))
}

const spillPathIn = (dir: string) => () => {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  return path.join(dir, `run_shell_command_${randomBytes(8).toString("hex")}.output`)
}

/**
 * bubblewrap reports a command killed by signal N as exit code 128+N (as bash's `$?` does); turn
 * it back into the signal so that a sandboxed kill reads like an unsandboxed one.
 *
 * @category constructors
 */
export const signalFromSandboxExit = (exit: ExitInfo): ExitInfo => {
  if (exit.signal !== null || exit.exitCode === null || exit.exitCode <= 128 || exit.exitCode > 128 + 31) return exit
  const entry = Object.entries(os.constants.signals).find(([, n]) => n === exit.exitCode! - 128)
  return entry === undefined ? exit : { ...exit, exitCode: null, signal: entry[0] as NodeJS.Signals }
}

const reportSignals = <P extends Spawned>(proc: P): P => ({ ...proc, exited: Effect.map(proc.exited, signalFromSandboxExit) })

/** How long a cached one-time check is kept: for ever, unless it was given up in the launch queue. */
const untilQueueTimeout = (exit: Exit.Exit<unknown, { readonly _tag: string }>): Duration.Duration =>
  Exit.isFailure(exit) && Option.exists(Exit.findErrorOption(exit), (e) => e._tag === "LaunchQueueTimeout") ? Duration.zero : Duration.infinity

/** Builds the host for the current session. @category constructors */
export const make: Effect.Effect<ProcessHost.Service, never, Session | Scope.Scope> = Effect.gen(function*() {
  const session = yield* Session
  const settings = settingsInEffect(yield* ShellConfig)
  const sessionTag = `tw${session.id}`
  const runs = yield* Ref.make(0)
  // Whether a process of this session may still be alive when it ends: set by every launch that
  // bubblewrap's pid namespace does not take down as a whole once it exits (unconfined or macOS,
  // background, handed off, or killed before it exited). Sandboxed runs that ended on Linux leave
  // nothing (the kernel kills a pid namespace with its first process), so the session's end need
  // not scan /proc for them.
  const mayOutlive = yield* Ref.make(false)
  const outlives = Ref.set(mayOutlive, true)
  const loaded = yield* Effect.cached(Effect.result(loadNodePty(settings.ptyModule)))
  const nodePty = Effect.map(loaded, (r) => (r._tag === "Success" ? Option.some(r.success) : Option.none()))
  const ptyFailure = yield* Ref.make<string | undefined>(undefined)
  const warned = yield* Ref.make(false)

  const backend: Effect.Effect<BackendInfo> = Effect.gen(function*() {
    if (settings.pty === "off") return { backend: "child_process", reason: "the PTY is turned off (pty: \"off\")" } as const
    const result = yield* loaded
    const reason = result._tag === "Failure" ? result.failure.message : yield* Ref.get(ptyFailure)
    if (reason === undefined) return { backend: "pty" } as const
    // Said once per session: commands still run, on pipes (no colours, no TTY for the program).
    if (!(yield* Ref.getAndSet(warned, true))) {
      yield* Effect.logWarning(`toolwright: shell commands run without a PTY (pipes instead): ${reason}`)
    }
    return { backend: "child_process", reason } as const
  })

  const sandbox = sandboxSettingsOrDefault(yield* SandboxConfig)
  const workspace = yield* Effect.serviceOption(Workspace)
  // once per process (the launch gate keeps it for every session); a failure is tried again after a while
  const sandboxReady = yield* sandboxCheck(sandbox)
  // The private temp dir of sandboxed commands (their TMPDIR): made on first use, removed with the session.
  const tmpDir = path.join(os.tmpdir(), `toolwright-tmp-${session.id}`)
  yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(tmpDir, { recursive: true, force: true })))
  const ensureTmpDir = Effect.sync(() => fs.mkdirSync(tmpDir, { recursive: true, mode: 0o700 }))
  // Unconfined commands get a guard process that kills them should the server die without cleaning up.
  const hostScope = yield* Effect.scope
  const guard = yield* Effect.cachedWithTTL(Scope.provide(startOrphanGuard(`${sessionTag}.`), hostScope), untilQueueTimeout)
  const scopeFor = (cwd: string): SandboxScope => ({
    writable: Option.match(workspace, {
      onNone: () => [cwd],
      onSome: (w) => [...w.roots, w.stateDir, cwd]
    }),
    tmpDir,
    cwd
  })

  // which inherited variables pass, by name, decided once per host (the values are read per command)
  const envDecided = new Map<string, boolean>()
  const envFor = (tag: string, confined: boolean): Record<string, string> => ({
    ...inheritedEnvironment(process.env, { allow: sandbox.envAllow }, envDecided),
    ...settings.env,
    ...(confined ? { TMPDIR: tmpDir } : {}),
    TERM: "xterm-256color",
    PAGER: "cat",
    GIT_PAGER: "cat",
    TOOLWRIGHT: "1",
    TOOLWRIGHT_SESSION_ID: session.id,
    [PROCESS_TAG_VARIABLE]: tag
  })

  /** How one command is launched: confined (after the sandbox's one-time check), or watched by the guard. */
  const launch = Effect.fnUntraced(function*(command: string, cwd: string, unsandboxed: boolean | undefined) {
    const mode: SandboxMode = unsandboxed === true ? "off" : sandbox.mode
    const scope = scopeFor(cwd)
    // bash reads ~/.bashrc for `-c` when its stdin is a socket (a background shell's stdin pipe): --norc keeps every run alike.
    const shell = { file: settings.shell, args: [...(path.basename(settings.shell) === "bash" ? ["--norc"] : []), "-c", command] }
    if (mode === "off") {
      const g: OrphanGuard = yield* guard
      yield* outlives
      return { mode, scope, launcher: shell, guard: g, confined: false }
    }
    yield* sandboxReady
    yield* ensureTmpDir
    if (process.platform === "darwin") yield* outlives
    return { mode, scope, launcher: confine(sandbox, scope, shell), guard: undefined, confined: true }
  })

  const nextTag = Ref.modify(runs, (n): [string, number] => [`${sessionTag}.${n + 1}`, n + 1])

  const kill = (pid: number | undefined, tag: string) =>
    killProcessTree(pid ?? 0, { graceMs: settings.killGraceMs, tag }).pipe(Effect.asVoid)

  const limits: CaptureLimits = {
    memoryChars: settings.memoryChars,
    maxCapturedBytes: settings.maxCapturedBytes,
    headChars: settings.spillHeadChars,
    tailChars: settings.spillTailChars
  }

  const run = Effect.fn("ProcessHost.run")(function*(request: RunRequest) {
    // the one-time checks (the sandbox's, the orphan guard) may wait at the launch gate too
    const [launched, checksWaitMs] = yield* withLaunchWaits(launch(request.command, request.cwd, request.unsandboxed))
    const tag = yield* nextTag
    const info = yield* backend
    const capture = new OutputCapture(limits, spillPathIn(request.spillDir), { budget: request.spillBudget })
    if (request.onLiveText) capture.trackLive()
    let screen: Screen | undefined
    let dirty = false
    // after a hand-off the output belongs to whoever took the command
    let handedOff = false
    let sink: ((chunk: Buffer) => void) | undefined
    const early: Array<Buffer> = []
    let lastOutputAt = Date.now()
    const onData = (chunk: Buffer) => {
      lastOutputAt = Date.now()
      if (handedOff) {
        if (sink) sink(chunk)
        else early.push(chunk)
        return
      }
      capture.push(chunk)
      if (screen && !capture.binary) screen.push(chunk)
      dirty = true
    }
    const spec = {
      shell: settings.shell,
      command: request.command,
      cwd: request.cwd,
      env: envFor(tag, launched.mode !== "off"),
      launcher: launched.launcher,
      onData,
      cols: settings.screen.cols,
      rows: settings.screen.rows
    }
    // set once the process is spawned: the timeout, the wall time and elapsedMs count from there
    let started = Date.now()
    let launchWaitMs = checksWaitMs
    let fallbackReason = info.reason
    let finished: CapturedOutput | undefined
    const finish = () => (finished ??= capture.finish())

    return yield* Effect.scoped(Effect.gen(function*() {
      // Waiting for a launch slot happens before the (uninterruptible) acquire: a call cancelled
      // while queued never spawns.
      const proc = yield* gatedLaunch("the command", (admitted) => Effect.acquireRelease(
        Effect.gen(function*() {
          launchWaitMs += admitted.waitedMs
          if (info.backend === "pty") {
            const pty = yield* nodePty
            if (Option.isSome(pty)) {
              screen = new Screen(settings.screen)
              const spawned = yield* Effect.result(spawnPty(pty.value, spec))
              if (spawned._tag === "Success") return launched.confined ? reportSignals(spawned.success) : spawned.success
              screen = undefined
              fallbackReason = spawned.failure.message
              yield* Ref.set(ptyFailure, spawned.failure.message)
            }
          }
          const piped = yield* spawnPiped(spec)
          return launched.confined ? reportSignals(piped) : piped
        }).pipe(Effect.tap((proc) => Effect.sync(() => {
          started = Date.now()
          launched.guard?.watch(proc.pid)
        }))),
        (proc) =>
          Effect.gen(function*() {
            if (!handedOff && !proc.hasExited()) yield* Effect.andThen(outlives, kill(proc.pid, tag))
            finish()
            screen?.dispose()
          })
      ))

      const snapshot: Effect.Effect<LiveOutput> = Effect.suspend(() => {
        if (capture.binary) {
          return Effect.succeed(
            capture.totalBytes > 0 ? `[Receiving binary output... ${formatBytes(capture.totalBytes)} received]` : BINARY_DETECTED_MESSAGE
          )
        }
        return screen ? Effect.map(screen.render, (ansi): LiveOutput => ({ _tag: "AnsiOutput", ansi })) : Effect.succeed(capture.liveTail(16 * 1024))
      })
      // an emit interrupted between clearing `dirty` and sending (the command ended meanwhile) marks
      // the screen dirty again, so that the final emit after the live loop still sends it
      const emit = Effect.gen(function*() {
        if (!request.onOutput || !dirty) return
        dirty = false
        yield* request.onOutput(yield* snapshot)
      }).pipe(Effect.onInterrupt(() => Effect.sync(() => {
        dirty = true
      })))
      const live = request.onOutput
        ? yield* emit.pipe(Effect.delay(Duration.millis(settings.liveIntervalMs)), Effect.forever, Effect.forkScoped)
        : undefined
      const onLiveText = request.onLiveText
      const emitText = Effect.suspend(() => {
        const text = onLiveText ? capture.takeLive() : ""
        return text === "" ? Effect.void : onLiveText!(text)
      })
      const liveText = onLiveText
        ? yield* emitText.pipe(Effect.delay(Duration.millis(LIVE_TEXT_INTERVAL_MS)), Effect.forever, Effect.forkScoped)
        : undefined

      // the command ends, or (when asked for) it waits on its terminal in silence, or passes the wall time
      const auto = request.autoBackground
      const watch: Effect.Effect<Handoff["reason"]> = auto === undefined || (auto.idleMs <= 0 && auto.wallMs <= 0)
        ? Effect.never
        : Effect.gen(function*() {
          while (true) {
            yield* Effect.sleep(Duration.millis(AUTO_BACKGROUND_POLL_MS))
            const now = Date.now()
            if (auto.wallMs > 0 && now - started >= auto.wallMs) return "wall" as const
            if (auto.idleMs > 0 && proc.backend === "pty" && now - lastOutputAt >= auto.idleMs && runWaitsOnTerminal(proc.pid ?? 0, tag)) {
              return "input" as const
            }
          }
        })
      const ended = Effect.raceFirst(
        Effect.map(proc.exited, (exit) => ({ _tag: "Exit", exit }) as const),
        Effect.map(watch, (reason) => ({ _tag: "Handoff", reason }) as const)
      )
      const outcome = request.timeoutMs > 0
        ? yield* Effect.timeoutOption(ended, Duration.millis(request.timeoutMs))
        : Option.some(yield* ended)
      if (Option.isSome(outcome) && outcome.value._tag === "Handoff") {
        handedOff = true
        yield* outlives
        if (live) yield* Fiber.interrupt(live)
        yield* emit
        const output = finish()
        const ansi = screen && output.kind === "text" && screen.styled ? yield* screen.render : undefined
        const handoff: Handoff = {
          reason: outcome.value.reason,
          proc: { ...proc, tag },
          attach: (next) => {
            sink = next
            for (const chunk of early.splice(0)) next(chunk)
          }
        }
        return {
          exitCode: null,
          signal: null,
          backend: proc.backend,
        launcher: proc.launcher,
          ...(proc.backend === "child_process" && fallbackReason ? { fallbackReason } : {}),
          pid: proc.pid,
          timedOut: false,
          output,
          ...(ansi !== undefined ? { ansi } : {}),
          elapsedMs: Date.now() - started,
          sandbox: launched.mode,
          sandboxScope: launched.scope,
          ...(launchWaitMs > 0 ? { launchWaitMs } : {}),
          handoff
        } satisfies RunResult
      }
      const waited = Option.map(outcome, (o) => (o as Extract<typeof o, { _tag: "Exit" }>).exit)
      let exit: ExitInfo
      let timedOut = false
      if (Option.isSome(waited)) exit = waited.value
      else {
        timedOut = true
        yield* outlives
        yield* kill(proc.pid, tag)
        exit = Option.getOrElse(yield* Effect.timeoutOption(proc.exited, Duration.seconds(3)), () => ({ exitCode: null, signal: "SIGKILL" as const }))
      }
      if (live) yield* Fiber.interrupt(live)
      if (liveText) yield* Fiber.interrupt(liveText)
      yield* emit // the trailing update
      const output = finish()
      yield* emitText // the last lines, the unterminated one included
      // Plain output (no escape sequence, control character or non-ASCII byte) is its own screen:
      // the replay into a new terminal is skipped and the text is shown.
      const ansi = screen && output.kind === "text" && screen.styled ? yield* screen.render : undefined
      return {
        ...exit,
        backend: proc.backend,
        launcher: proc.launcher,
        ...(proc.backend === "child_process" && fallbackReason ? { fallbackReason } : {}),
        pid: proc.pid,
        timedOut,
        output,
        ...(ansi !== undefined ? { ansi } : {}),
        elapsedMs: Date.now() - started,
        sandbox: launched.mode,
        sandboxScope: launched.scope,
        ...(launchWaitMs > 0 ? { launchWaitMs } : {})
      } satisfies RunResult
    }))
  })

  const start = Effect.fn("ProcessHost.start")(function*(request: StartRequest) {
    const launched = yield* launch(request.command, request.cwd, request.unsandboxed)
    const tag = yield* nextTag
    yield* outlives
    const spawned = yield* gatedLaunch("the command", () =>
      spawnPiped({
        shell: settings.shell,
        command: request.command,
        cwd: request.cwd,
        env: envFor(tag, launched.mode !== "off"),
        launcher: launched.launcher,
        onData: request.onData,
        stdin: "pipe"
      }))
    launched.guard?.watch(spawned.pid)
    return { ...(launched.confined ? reportSignals(spawned) : spawned), tag } satisfies StartedProcess
  })

  // The session's end: every tagged process still alive dies (SIGTERM, grace, SIGKILL). Only
  // processes started here carry the session's tag: a session that started none, or only sandboxed
  // runs that ended (see mayOutlive), skips the /proc scan (it reads every process's environment).
  yield* Effect.addFinalizer(() =>
    Effect.gen(function*() {
      if (!(yield* Ref.get(mayOutlive))) return
      const alive = findTaggedPids(sessionTag, { prefix: true })
      if (alive.length === 0) return
      signalPids(alive, "SIGTERM")
      yield* Effect.sleep(Duration.millis(settings.killGraceMs))
      signalPids(findTaggedPids(sessionTag, { prefix: true }), "SIGKILL")
    })
  )

  return ProcessHost.of({ settings, sandbox, sessionTag, backend, run, start, kill })
})
