/**
 * `BackgroundShells`: the session's background processes (`is_background: true`). Each gets an
 * id `bg_<8 hex>`, an output file (plain text, written as it streams, capped) and a status file
 * (JSON, 0600, replaced atomically), and a one-shot state machine running → completed | failed |
 * cancelled: the first settlement wins, later callbacks are no-ops. A finished shell publishes a
 * `<task-notification>` once (a Stream, a queue to drain, and a `ShellFinished` on the session's
 * `SessionEvents` for the door). At most 32 finished entries are kept. Closing the session's scope
 * cancels every running shell and waits for it.
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { OutputStore } from "../../output/index.js"
import { SessionEvents } from "../../session/index.js"
import {
  type LaunchQueueTimeout,
  type SandboxUnavailable,
  SendMessageNotFound,
  SendMessageNotRunning,
  TaskStopNotFound,
  TaskStopNotRunning
} from "../../tool/index.js"
import { type Handoff, ProcessHost, type StartedProcess } from "../terminal/host.js"
import {
  type BackgroundStatus,
  completionReminder,
  notificationDisplay,
  readFileTail,
  taskNotification
} from "./notification.js"
import { PlainTextDecoder } from "../terminal/plainText.js"
import { closeHeldDescriptor } from "../terminal/spawn.js"

/** One background shell as the registry reports it. @category models */
export interface BackgroundShell {
  readonly id: string
  readonly command: string
  readonly cwd: string
  readonly pid?: number | undefined
  readonly status: BackgroundStatus
  /** ms since the epoch. */
  readonly startTime: number
  readonly endTime?: number | undefined
  readonly exitCode?: number | undefined
  /** Why it failed (error, `terminated by signal …`, `exited with code …`). */
  readonly error?: string | undefined
  readonly outputPath: string
  readonly statusPath: string
}

/** A finished shell's notification. @category models */
export interface ShellNotification {
  readonly id: string
  readonly status: Exclude<BackgroundStatus, "running">
  /** The model-facing `<task-notification>` text. */
  readonly text: string
  /** One line for people. */
  readonly display: string
}

/** `statusFilePathFor('x.output') = 'x.status'`, otherwise `x + '.status'`. @category constructors */
export const statusFilePathFor = (outputPath: string): string =>
  outputPath.endsWith(".output") ? `${outputPath.slice(0, -".output".length)}.status` : `${outputPath}.status`

/** A fresh background id: `bg_` and 8 hex digits. @category constructors */
export const newBackgroundId = (): string => `bg_${randomBytes(4).toString("hex")}`

/** The status file's JSON. @category models */
export interface StatusFile {
  readonly id: string
  readonly status: BackgroundStatus
  readonly command: string
  readonly cwd: string
  readonly startTime: string
  readonly updatedAt: string
  readonly pid?: number
  readonly endTime?: string
  readonly exitCode?: number
  readonly error?: string
}

const statusJson = (shell: BackgroundShell): StatusFile => ({
  id: shell.id,
  status: shell.status,
  command: shell.command,
  cwd: shell.cwd,
  startTime: new Date(shell.startTime).toISOString(),
  updatedAt: new Date().toISOString(),
  ...(shell.pid !== undefined ? { pid: shell.pid } : {}),
  ...(shell.endTime !== undefined ? { endTime: new Date(shell.endTime).toISOString() } : {}),
  ...(shell.exitCode !== undefined ? { exitCode: shell.exitCode } : {}),
  ...(shell.error !== undefined ? { error: shell.error } : {})
})

/** Writes the status file atomically (temp file 0600, then rename). @category constructors */
export const writeStatusFile = (shell: BackgroundShell): Effect.Effect<void> =>
  Effect.sync(() => {
    const temp = path.join(path.dirname(shell.statusPath), `.${path.basename(shell.statusPath)}.${randomBytes(4).toString("hex")}.tmp`)
    try {
      fs.writeFileSync(temp, `${JSON.stringify(statusJson(shell), null, 2)}\n`, { mode: 0o600, flag: "wx" })
      fs.chmodSync(temp, 0o600)
      fs.renameSync(temp, shell.statusPath)
    } catch {
      fs.rmSync(temp, { force: true })
    }
  })

/** A background command to start. @category models */
export interface BackgroundRequest {
  readonly command: string
  readonly cwd: string
  /** Run it outside the sandbox (a person approved it). */
  readonly unsandboxed?: boolean | undefined
}

/** A running foreground command to take over. @category models */
export interface AdoptRequest {
  readonly command: string
  readonly cwd: string
  readonly handoff: Handoff
  /** What it printed before the hand-off, as plain text. */
  readonly outputSoFar: string
}

/** Types of {@link BackgroundShells}. @category models */
export declare namespace BackgroundShells {
  /** The service shape. */
  export interface Service {
    /** Starts a command in the background. */
    readonly start: (request: BackgroundRequest) => Effect.Effect<BackgroundShell, SandboxUnavailable | LaunchQueueTimeout>
    /**
     * Takes over a foreground command that is still running (a {@link Handoff}): its output so far
     * opens the output file, and it continues as a background shell (send_message, task_stop,
     * the notification when it ends).
     */
    readonly adopt: (request: AdoptRequest) => Effect.Effect<BackgroundShell>
    readonly get: (id: string) => Effect.Effect<Option.Option<BackgroundShell>>
    /** Every retained shell, oldest first. */
    readonly list: Effect.Effect<ReadonlyArray<BackgroundShell>>
    /** Stops a running shell (its whole tree) and waits until it settled as `cancelled`. */
    readonly stop: (id: string) => Effect.Effect<BackgroundShell, TaskStopNotFound | TaskStopNotRunning>
    /** Writes `message` and a newline to a running shell's stdin; returns the bytes written. */
    readonly send: (id: string, message: string) => Effect.Effect<number, SendMessageNotFound | SendMessageNotRunning>
    /** Waits until the shell settled (or the timeout passed) and returns its state. */
    readonly await: (id: string, timeout?: Duration.Input) => Effect.Effect<Option.Option<BackgroundShell>>
    /** Notifications of shells finishing from now on. */
    readonly notifications: Stream.Stream<ShellNotification>
    /** Notifications not drained yet (each is returned once). */
    readonly drainNotifications: Effect.Effect<ReadonlyArray<ShellNotification>>
  }
}

/** The session's background shells. @category services */
export class BackgroundShells extends Context.Service<BackgroundShells, BackgroundShells.Service>()("toolwright/shell/BackgroundShells") {
  /**
   * The registry; needs the session's {@link ProcessHost}, {@link OutputStore} (its directory) and
   * {@link SessionEvents} (where a finished shell is announced to the door).
   */
  static readonly layer: Layer.Layer<BackgroundShells, never, ProcessHost | OutputStore | SessionEvents> = Layer.effect(BackgroundShells, Effect.suspend(() => make))
}

interface Runtime {
  readonly proc: StartedProcess
  readonly settled: Deferred.Deferred<BackgroundShell>
  cancelRequested: boolean
  fd: number | undefined
  written: number
  capped: boolean
  readonly decoder: PlainTextDecoder
}

/** Builds the registry. @category constructors */
export const make: Effect.Effect<BackgroundShells.Service, never, ProcessHost | OutputStore | SessionEvents | Scope.Scope> = Effect.gen(function*() {
  const host = yield* ProcessHost
  const sessionEvents = yield* SessionEvents
  const store = yield* OutputStore
  const dir = path.join(store.dir, "background-shells")
  const cap = host.settings.maxCapturedBytes
  const shells = yield* Ref.make<ReadonlyMap<string, BackgroundShell>>(new Map())
  const runtimes = new Map<string, Runtime>()
  const fibers = yield* FiberSet.make()
  const pubsub = yield* PubSub.unbounded<ShellNotification>()
  const pending = yield* Ref.make<ReadonlyArray<ShellNotification>>([])

  const writeOut = (rt: Runtime, text: string) => {
    if (rt.fd === undefined || rt.capped || text.length === 0) return
    let bytes = Buffer.from(text, "utf8")
    // The log draws on the session's disk budget too (shared with saved outputs and spill files).
    const capRoom = cap - rt.written
    const granted = store.scratch.claim(Math.min(bytes.length, capRoom))
    const over = granted < bytes.length
    if (over) {
      let end = granted
      while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
      store.scratch.release(granted - end)
      bytes = bytes.subarray(0, end)
    }
    try {
      fs.writeSync(rt.fd, bytes)
      rt.written += bytes.length
      if (over) {
        rt.capped = true
        const why = granted >= capRoom
          ? `the maximum captured size of ${cap} bytes`
          : "the session's disk budget for outputs"
        fs.writeSync(rt.fd, `\n[Output exceeded ${why}; later output was discarded.]\n`)
      }
    } catch {
      // the disk is full or the file is gone: stop writing
      closeHeldDescriptor(rt)
    }
  }

  const prune = Ref.update(shells, (map) => {
    const finished = [...map.values()].filter((s) => s.status !== "running").sort((a, b) => (a.endTime ?? 0) - (b.endTime ?? 0))
    const excess = finished.length - host.settings.maxRetainedBackground
    if (excess <= 0) return map
    const next = new Map(map)
    for (const s of finished.slice(0, excess)) {
      next.delete(s.id)
      runtimes.delete(s.id)
    }
    return next
  })

  const settle = Effect.fnUntraced(function*(id: string, rt: Runtime) {
    const exit = yield* rt.proc.exited
    // One-shot: only a running entry settles; late settlements are no-ops.
    const current = (yield* Ref.get(shells)).get(id)
    if (!current || current.status !== "running") return
    writeOut(rt, rt.decoder.end())
    closeHeldDescriptor(rt)
    const base = { ...current, endTime: Date.now() }
    const shell: BackgroundShell = rt.cancelRequested
      ? { ...base, status: "cancelled", ...(exit.exitCode !== null ? { exitCode: exit.exitCode } : {}) }
      : exit.error !== undefined
      ? { ...base, status: "failed", error: exit.error }
      : exit.signal !== null
      ? { ...base, status: "failed", error: `terminated by signal ${exit.signal}` }
      : exit.exitCode !== 0
      ? { ...base, status: "failed", exitCode: exit.exitCode ?? undefined, error: `exited with code ${exit.exitCode}` }
      : { ...base, status: "completed", exitCode: 0 }
    yield* Ref.update(shells, (map) => new Map(map).set(id, shell))
    yield* writeStatusFile(shell)
    const status = shell.status as ShellNotification["status"]
    const notification: ShellNotification = {
      id,
      status,
      text: taskNotification({
        id,
        status,
        command: shell.command,
        cwd: shell.cwd,
        pid: shell.pid,
        exitCode: shell.exitCode,
        error: shell.error,
        outputPath: shell.outputPath,
        tail: readFileTail(shell.outputPath)
      }),
      display: notificationDisplay(shell.command, status)
    }
    yield* Ref.update(pending, (list) => [...list, notification])
    yield* prune
    yield* PubSub.publish(pubsub, notification)
    // the door (MCP server) tells its host; it does not know the shell room
    yield* sessionEvents.publish({ _tag: "ShellFinished", shellId: id, status, text: notification.text, display: notification.display })
    // and the model hears it with its next tool result (not a cancellation: task_stop or the end of
    // the session asked for it, and task_stop's own result says so)
    if (status !== "cancelled") {
      yield* sessionEvents.remind(
        `shell:${id}`,
        completionReminder({ id, status, command: shell.command, exitCode: shell.exitCode, error: shell.error, outputPath: shell.outputPath })
      )
    }
    yield* Deferred.succeed(rt.settled, shell)
  })

  const start = Effect.fn("BackgroundShells.start")(function*(request: BackgroundRequest) {
    return yield* register(request.command, request.cwd, "", (onData) =>
      host.start({ command: request.command, cwd: request.cwd, onData, unsandboxed: request.unsandboxed }))
  })

  const adopt = Effect.fn("BackgroundShells.adopt")(function*(request: AdoptRequest) {
    return yield* register(request.command, request.cwd, request.outputSoFar, (onData) =>
      Effect.sync(() => {
        request.handoff.attach(onData)
        return request.handoff.proc
      }))
  })

  /** Opens the output file (with the output so far), starts or takes the process, and watches it settle. */
  const register = Effect.fnUntraced(function*<E>(
    command: string,
    cwd: string,
    outputSoFar: string,
    acquire: (onData: (chunk: Buffer) => void) => Effect.Effect<StartedProcess, E>
  ) {
    const request = { command, cwd }
    const id = newBackgroundId()
    yield* Effect.sync(() => fs.mkdirSync(dir, { recursive: true, mode: 0o700 }))
    const outputPath = path.join(dir, `shell-${id}.output`)
    const statusPath = statusFilePathFor(outputPath)
    const fd = yield* Effect.sync(() => {
      try {
        return fs.openSync(outputPath, "wx", 0o600)
      } catch {
        return undefined
      }
    })
    const settled = yield* Deferred.make<BackgroundShell>()
    const decoder = new PlainTextDecoder({ carriageReturn: "newline" })
    let rt: Runtime | undefined
    const early: Array<Buffer> = []
    const onData = (chunk: Buffer) => {
      if (!rt) {
        early.push(chunk)
        return
      }
      writeOut(rt, decoder.push(chunk) + decoder.flushPending())
    }
    const proc = yield* acquire(onData).pipe(
      Effect.tapError(() => Effect.sync(() => {
        if (fd !== undefined) fs.closeSync(fd)
        fs.rmSync(outputPath, { force: true })
      }))
    )
    rt = { proc, settled, cancelRequested: false, fd, written: 0, capped: false, decoder }
    writeOut(rt, outputSoFar)
    for (const chunk of early.splice(0)) onData(chunk)
    runtimes.set(id, rt)
    const shell: BackgroundShell = {
      id,
      command: request.command,
      cwd: request.cwd,
      ...(proc.pid !== undefined ? { pid: proc.pid } : {}),
      status: "running",
      startTime: Date.now(),
      outputPath,
      statusPath
    }
    yield* Ref.update(shells, (map) => new Map(map).set(id, shell))
    yield* writeStatusFile(shell)
    yield* FiberSet.run(fibers, settle(id, rt))
    return shell
  })

  const get = (id: string) => Effect.map(Ref.get(shells), (map) => Option.fromNullishOr(map.get(id)))

  const awaitSettled = (id: string, timeout: Duration.Input = Duration.seconds(10)) =>
    Effect.gen(function*() {
      const rt = runtimes.get(id)
      if (rt) yield* Deferred.await(rt.settled).pipe(Effect.timeoutOption(timeout))
      return yield* get(id)
    })

  const stop = Effect.fn("BackgroundShells.stop")(function*(id: string) {
    const shell = (yield* Ref.get(shells)).get(id)
    const rt = runtimes.get(id)
    if (!shell || !rt) return yield* new TaskStopNotFound({ message: `Error: No background task found with ID "${id}".`, display: "Task not found." })
    if (shell.status !== "running") {
      return yield* new TaskStopNotRunning({
        message: `Error: Background shell "${id}" is not running (status: ${shell.status}).`,
        display: `Background shell ${id} is ${shell.status}.`
      })
    }
    rt.cancelRequested = true
    yield* host.kill(rt.proc.pid, rt.proc.tag)
    return Option.getOrElse(yield* awaitSettled(id, Duration.seconds(5)), () => shell)
  })

  const send = Effect.fn("BackgroundShells.send")(function*(id: string, message: string) {
    const shell = (yield* Ref.get(shells)).get(id)
    const rt = runtimes.get(id)
    if (!shell || !rt) return yield* new SendMessageNotFound({ message: `Error: No background task found with ID "${id}".`, display: "Task not found." })
    if (shell.status !== "running") {
      return yield* new SendMessageNotRunning({
        message: `Error: Background task "${id}" is not running (status: ${shell.status}). Cannot send messages to stopped tasks.`,
        display: `Background task ${id} is ${shell.status}.`
      })
    }
    const data = `${message}\n`
    yield* rt.proc.write(data).pipe(
      Effect.mapError((e) =>
        new SendMessageNotRunning({
          message: `Error: Background task "${id}" is not accepting input (${e.message}). Its output file may say why: ${shell.outputPath}`,
          display: `Background task ${id} does not accept input.`
        })
      )
    )
    return Buffer.byteLength(data)
  })

  // The session's end: cancel every running shell, and wait for each to settle.
  yield* Effect.addFinalizer(() =>
    Effect.gen(function*() {
      const running = [...(yield* Ref.get(shells)).values()].filter((s) => s.status === "running")
      yield* Effect.forEach(running, (s) => stop(s.id).pipe(Effect.ignore), { concurrency: "unbounded", discard: true })
    })
  )

  return BackgroundShells.of({
    start,
    adopt,
    get,
    list: Effect.map(Ref.get(shells), (map) => [...map.values()].sort((a, b) => a.startTime - b.startTime)),
    stop,
    send,
    await: awaitSettled,
    notifications: Stream.fromPubSub(pubsub),
    drainNotifications: Ref.getAndSet(pending, [])
  })
})
