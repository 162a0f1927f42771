/**
 * Starting a command under a PTY or on pipes, behind one handle. The command always leads its own
 * process group (the PTY child is a session leader; the piped child is spawned detached), so the
 * group can be signalled as a whole.
 *
 * Both start through the process room's launcher: with the posix_spawn addon, pipes and the PTY
 * are ours (no fork of the Node process; the exit comes from a pidfd); without it, pipes are
 * `child_process` and the PTY is node-pty. node-pty is loaded lazily; when it cannot load (say,
 * built for another Node ABI) the caller falls back to pipes and reports why.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import { constants as osConstants } from "node:os"
import { createRequire } from "node:module"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as NodePty from "node-pty"
import { Launcher, type LaunchedPty, type LauncherName, type LauncherService } from "../../process/index.js"
import { type DrainMark, makeDrainMark } from "./drainMark.js"

/** Which process backend ran a command. @category models */
export type Backend = "pty" | "child_process"

/** How a process ended. @category models */
export interface ExitInfo {
  readonly exitCode: number | null
  readonly signal: NodeJS.Signals | null
  /** Set when the process could not be started (or its pipes failed). */
  readonly error?: string | undefined
}

/** What to start. @category models */
export interface SpawnSpec {
  readonly shell: string
  readonly command: string
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  /** What to execute instead of `shell -c command` (the sandbox's launcher wrapping it). */
  readonly launcher?: { readonly file: string; readonly args: ReadonlyArray<string> } | undefined
  /** Receives every output chunk (stdout and stderr interleaved; the PTY's single stream). */
  readonly onData: (chunk: Buffer) => void
  /** Pipes only: keep stdin open for writes (background shells). */
  readonly stdin?: "ignore" | "pipe" | undefined
  readonly cols?: number | undefined
  readonly rows?: number | undefined
}

/** A started process. @category models */
export interface Spawned {
  readonly backend: Backend
  /** What started it: the posix_spawn addon, or child_process / node-pty. */
  readonly launcher: LauncherName
  /** Undefined when the spawn failed before a process existed. */
  readonly pid: number | undefined
  /** Completes once the process exited and its output was drained. */
  readonly exited: Effect.Effect<ExitInfo>
  /** Whether `exited` has completed. */
  readonly hasExited: () => boolean
  /** Writes to stdin (PTY input, or the stdin pipe). */
  readonly write: (data: string) => Effect.Effect<void, StdinClosed>
}

/** Writing to a process's stdin failed: it is closed or the process is gone. @category errors */
export class StdinClosed extends Schema.TaggedError<StdinClosed>()("StdinClosed", { message: Schema.String }) {}

/** node-pty could not be started. @category errors */
export class PtyUnavailable extends Schema.TaggedError<PtyUnavailable>()("PtyUnavailable", { message: Schema.String }) {}

/** How long a piped process's output may keep flowing after it exited (grandchildren holding the pipe). @category constants */
export const PIPE_DRAIN_MS = 250

const signalName = (n: number | undefined): NodeJS.Signals | null => {
  if (!n) return null
  const entry = Object.entries(osConstants.signals).find(([, value]) => value === n)
  return (entry?.[0] as NodeJS.Signals | undefined) ?? null
}

/** Quiet time after a PTY child is gone before its output counts as drained, where no drain mark could be written. @category constants */
export const PTY_QUIET_MS = 20

/** How many times a PTY child is looked for every millisecond before the checks slow down (to every 10 ms). */
const FAST_POLLS = 20

/** How long the drain mark may take to come back before the PTY counts as drained anyway. @category constants */
export const PTY_MARK_WAIT_MS = 250

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The device path of the PTY's slave side (node-pty keeps it in `_pty`), if it can be read. */
const slaveDevice = (term: NodePty.IPty): string | undefined => {
  const device = (term as unknown as { readonly _pty?: unknown })._pty
  return typeof device === "string" ? device : undefined
}

/**
 * Opens the PTY's slave side, non-blocking (the drain mark is written through it, and a full PTY
 * buffer must not block the thread that drains it); undefined when it cannot.
 */
const holdSlave = (term: NodePty.IPty): { fd: number | undefined } | undefined => {
  const device = slaveDevice(term)
  if (device === undefined) return undefined
  try {
    return { fd: fs.openSync(device, fs.constants.O_RDWR | fs.constants.O_NOCTTY | fs.constants.O_NONBLOCK) }
  } catch {
    return undefined
  }
}

/** Closes a held descriptor once (a second close, or one already closed elsewhere, is a no-op). @category resources */
export const closeHeldDescriptor = (holder: { fd: number | undefined }): void => {
  if (holder.fd === undefined) return
  try {
    fs.closeSync(holder.fd)
  } catch {
    // already closed
  }
  holder.fd = undefined
}

/**
 * Writes the rest of the drain mark (from byte `sent`) through the held, non-blocking slave side.
 * Returns how much of the mark is written now (a full buffer takes part of it, or none: the rest
 * goes on a later try), or undefined when it cannot be written at all.
 */
const writeMark = (holder: { fd: number | undefined }, mark: DrainMark, sent: number): number | undefined => {
  if (holder.fd === undefined) return undefined
  try {
    mark.arm()
    return sent + fs.writeSync(holder.fd, mark.bytes, sent, mark.bytes.length - sent)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EAGAIN" ? sent : undefined
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Loads node-pty (its native module included); fails with the loader's message. @category constructors */
export const loadNodePty = (moduleName = "node-pty"): Effect.Effect<typeof NodePty, PtyUnavailable> =>
  Effect.try({
    try: () => createRequire(import.meta.url)(moduleName) as typeof NodePty,
    catch: (error) => new PtyUnavailable({ message: `node-pty could not be loaded: ${messageOf(error)}` })
  })

/**
 * Starts the command on a PTY. Fails with {@link PtyUnavailable} when node-pty refuses to spawn.
 *
 * @category constructors
 */
export const spawnPty = (pty: typeof NodePty, spec: SpawnSpec): Effect.Effect<Spawned, PtyUnavailable> =>
  Effect.flatMap(Launcher, (launcher) =>
    launcher.launchPty === undefined ? spawnNodePty(pty, spec) : spawnOwnPty(launcher.launchPty, spec))

const spawnNodePty = (pty: typeof NodePty, spec: SpawnSpec): Effect.Effect<Spawned, PtyUnavailable> =>
  Effect.gen(function*() {
    const done = yield* Deferred.make<ExitInfo>()
    let exited = false
    const term = yield* Effect.try({
      try: () =>
        pty.spawn(spec.launcher?.file ?? spec.shell, spec.launcher ? [...spec.launcher.args] : ["-c", spec.command], {
          name: "xterm-256color",
          cols: spec.cols ?? 120,
          rows: spec.rows ?? 30,
          cwd: spec.cwd,
          env: spec.env,
          encoding: null
        }),
      catch: (error) => new PtyUnavailable({ message: `node-pty could not start the command: ${messageOf(error)}` })
    })
    // Linux discards what is still queued on a PTY when its session leader exits, and a fast
    // command may even be hung up: hold the slave open until the child is gone and its output has
    // been drained, then let go so that the master sees the end. "Drained" is known exactly: once
    // the child is gone, a mark written to the slave comes back out of the master after the
    // child's last byte (drainMark.ts). Should the mark not come back within PTY_MARK_WAIT_MS, the
    // slave is let go anyway; where it cannot be written at all, 20 ms without output count.
    const holder = holdSlave(term)
    const mark = makeDrainMark((chunk) => spec.onData(chunk))
    let lastData = Date.now()
    term.onData((data) => {
      lastData = Date.now()
      if (mark.feed(data as unknown as Buffer) && holder !== undefined) closeHeldDescriptor(holder)
    })
    if (holder !== undefined) {
      let goneAt: number | undefined
      let markSent = 0
      let markDoneAt: number | undefined
      let markFailed = false
      // Polled every millisecond for the first ones (most commands are short), then less often,
      // up to every 10 ms.
      let polls = 0
      let delay = 1
      let timer: ReturnType<typeof setTimeout> | undefined
      const check = () => {
        timer = undefined
        if (holder.fd === undefined) return
        if (!isRunning(term.pid)) {
          const now = Date.now()
          goneAt ??= now
          if (markDoneAt === undefined && !markFailed) {
            const sent = writeMark(holder, mark, markSent)
            if (sent === undefined) markFailed = true
            else if ((markSent = sent) === mark.bytes.length) markDoneAt = now
          }
          const quiet = now - lastData >= PTY_QUIET_MS
          // Written: wait for it. Cannot be written: quiet time, as before. Not all written yet (the
          // buffer is full, so output is still being read): keep trying, within the same bound.
          const drained = mark.seen() ||
            (markDoneAt !== undefined
              ? now - markDoneAt >= PTY_MARK_WAIT_MS
              : markFailed
              ? quiet
              : quiet && now - goneAt >= PTY_MARK_WAIT_MS)
          if (drained) {
            closeHeldDescriptor(holder)
            return
          }
        }
        if (++polls > FAST_POLLS) delay = Math.min(delay + 1, 10)
        timer = setTimeout(check, delay)
        timer.unref()
      }
      timer = setTimeout(check, delay)
      timer.unref()
      term.onExit(() => {
        if (timer !== undefined) clearTimeout(timer)
        closeHeldDescriptor(holder)
      })
    }
    term.onExit(({ exitCode, signal }) => {
      mark.flush()
      exited = true
      Deferred.doneUnsafe(done, Effect.succeed({ exitCode: signal ? null : exitCode, signal: signalName(signal) }))
    })
    return {
      backend: "pty" as const,
      launcher: "child_process" as const,
      pid: term.pid,
      exited: Deferred.await(done),
      hasExited: () => exited,
      write: (data: string) =>
        exited
          ? Effect.fail(new StdinClosed({ message: "the process has exited" }))
          : Effect.try({ try: () => term.write(data), catch: (e) => new StdinClosed({ message: messageOf(e) }) })
    } satisfies Spawned
  })

/** How long the terminal may stay open after the drain, for grandchildren still holding it (as node-pty waits). @category constants */
export const PTY_CLOSE_WAIT_MS = 200

/**
 * The command on a terminal of our own (posix_spawn addon). We hold the slave side ourselves and
 * learn the exit from the pidfd, so the drain needs no polling: on exit, the drain mark is written
 * through the held slave (retried while the terminal is full), and once it comes back out of the
 * master, or PTY_MARK_WAIT_MS after the exit, the slave is let go; the master then ends (or is
 * closed PTY_CLOSE_WAIT_MS later, when a grandchild still holds the terminal).
 */
const spawnOwnPty = (launchPty: NonNullable<LauncherService["launchPty"]>, spec: SpawnSpec): Effect.Effect<Spawned, PtyUnavailable> =>
  Effect.gen(function*() {
    const done = yield* Deferred.make<ExitInfo>()
    let exited = false
    const proc: LaunchedPty = yield* Effect.try({
      try: () =>
        launchPty(spec.launcher?.file ?? spec.shell, spec.launcher ? [...spec.launcher.args] : ["-c", spec.command], {
          cwd: spec.cwd,
          // as node-pty sets them
          env: { ...spec.env, PWD: spec.cwd, TERM: "xterm-256color" },
          cols: spec.cols ?? 120,
          rows: spec.rows ?? 30
        }),
      catch: (error) => new PtyUnavailable({ message: `the command could not be started on a terminal: ${messageOf(error)}` })
    })
    const holder = proc.slave
    const mark = makeDrainMark((chunk) => spec.onData(chunk))
    let exit: ExitInfo | undefined
    let closed = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const complete = () => {
      if (exit === undefined || !closed || exited) return
      if (timer !== undefined) clearTimeout(timer)
      mark.flush()
      exited = true
      Deferred.doneUnsafe(done, Effect.succeed(exit))
    }
    const letGo = () => {
      closeHeldDescriptor(holder)
      if (timer !== undefined) clearTimeout(timer)
      timer = setTimeout(() => proc.master.destroy(), PTY_CLOSE_WAIT_MS)
    }
    proc.master.on("data", (chunk: Buffer) => {
      if (mark.feed(chunk) && holder.fd !== undefined) letGo()
    })
    proc.master.on("close", () => {
      closed = true
      closeHeldDescriptor(holder)
      complete()
    })
    proc.onExit((code, signal) => {
      exit = { exitCode: signal ? null : code, signal }
      const exitAt = Date.now()
      let sent = 0
      const drain = () => {
        timer = undefined
        if (holder.fd === undefined) return
        const waited = Date.now() - exitAt
        if (mark.seen() || waited >= PTY_MARK_WAIT_MS) return letGo()
        if (sent < mark.bytes.length) {
          const now = writeMark(holder, mark, sent)
          if (now === undefined) return letGo()
          sent = now
        }
        // not all written: the terminal is full and being read, try again soon; else wait for it to come back
        timer = setTimeout(drain, sent < mark.bytes.length ? 1 : PTY_MARK_WAIT_MS - waited)
      }
      drain()
      complete()
    })
    return {
      backend: "pty" as const,
      launcher: "posix_spawn" as const,
      pid: proc.pid,
      exited: Deferred.await(done),
      hasExited: () => exited,
      write: (data: string) =>
        exited
          ? Effect.fail(new StdinClosed({ message: "the process has exited" }))
          : Effect.callback<void, StdinClosed>((resume) =>
            proc.write(data, (error) => resume(error ? Effect.fail(new StdinClosed({ message: error.message })) : Effect.void))
          )
    } satisfies Spawned
  })

/**
 * Starts the command on pipes, detached (its own process group). A spawn failure is reported
 * through `exited` (with `error`), like the shell reports it.
 *
 * @category constructors
 */
export const spawnPiped = (spec: SpawnSpec): Effect.Effect<Spawned> =>
  Effect.gen(function*() {
    const done = yield* Deferred.make<ExitInfo>()
    let exited = false
    const finish = (info: ExitInfo) => {
      if (exited) return
      exited = true
      Deferred.doneUnsafe(done, Effect.succeed(info))
    }
    const launcher = yield* Launcher
    const child = launcher.launch(spec.launcher?.file ?? spec.shell, spec.launcher ? [...spec.launcher.args] : ["-c", spec.command], {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: [spec.stdin ?? "ignore", "pipe", "pipe"]
    })
    child.stdout?.on("data", spec.onData)
    child.stderr?.on("data", spec.onData)
    child.stdin?.on("error", () => undefined)
    child.on("error", (error) => finish({ exitCode: null, signal: null, error: error.message }))
    let closed = false
    child.on("close", (code, sig) => {
      closed = true
      finish({ exitCode: code, signal: sig })
    })
    child.on("exit", (code, sig) => {
      // Grandchildren may hold the pipes open: drain briefly, then stop reading.
      setTimeout(() => {
        if (closed) return
        child.stdout?.destroy()
        child.stderr?.destroy()
        finish({ exitCode: code, signal: sig })
      }, PIPE_DRAIN_MS).unref()
    })
    return {
      backend: "child_process" as const,
      launcher: launcher.name,
      pid: child.pid,
      exited: Deferred.await(done),
      hasExited: () => exited,
      write: (data: string) =>
        Effect.callback<void, StdinClosed>((resume) => {
          const stdin = child.stdin
          if (!stdin || stdin.destroyed || !stdin.writable || exited) {
            resume(Effect.fail(new StdinClosed({ message: exited ? "the process has exited" : "its stdin is closed" })))
            return
          }
          stdin.write(data, (error) =>
            resume(error ? Effect.fail(new StdinClosed({ message: error.message })) : Effect.void))
        })
    } satisfies Spawned
  })
