/**
 * The JS side of the `posix_spawn` addon (`native/spawn.c`, built by `npm ci` into
 * `build/Release/toolwright_spawn.node`): loading it, resolving a bare program name on the child's
 * PATH (as `child_process` does), and turning its pipe ends into streams.
 *
 * @since 0.1.0
 */
import { EventEmitter } from "node:events"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as net from "node:net"
import { constants as osConstants } from "node:os"
import * as path from "node:path"
import * as tty from "node:tty"
import { fileURLToPath } from "node:url"
import type { Launched, LaunchOptions } from "./launcher.js"

const IGNORE = -1
const PIPE = -2

/** The addon's functions. @category models */
export interface NativeAddon {
  readonly spawn: (
    file: string,
    argv: ReadonlyArray<string>,
    envp: ReadonlyArray<string>,
    cwd: string | null,
    stdio: ReadonlyArray<number>,
    flags: { readonly setsid?: boolean; readonly setpgroup?: boolean; readonly tty?: string; readonly unref?: boolean },
    onExit: (code: number | null, signal: number | null) => void
  ) => { readonly pid: number; readonly fds: ReadonlyArray<number> }
  readonly openPty: (cols: number, rows: number) => { readonly master: number; readonly slave: number; readonly path: string }
  readonly resize: (fd: number, cols: number, rows: number) => void
  readonly available: () => boolean
}

const ADDON_FILE = "toolwright_spawn.node"

/**
 * Loads the addon from `build/Release` at the package root (two folders above this module in
 * `src/process`, `dist/process` and the CLI bundle's `dist/bundle` alike). Returns why not, when not.
 * @category constructors
 */
export const loadAddon = (): NativeAddon | string => {
  if (process.platform !== "linux") return `the posix_spawn launcher is for Linux (this is ${process.platform})`
  const here = path.dirname(fileURLToPath(import.meta.url))
  const file = path.resolve(here, "..", "..", "build", "Release", ADDON_FILE)
  if (!fs.existsSync(file)) return `the posix_spawn addon is not built (${file} is missing; npm ci builds it)`
  try {
    const addon = createRequire(import.meta.url)(file) as NativeAddon
    return addon.available() ? addon : "pidfd_open is not available on this kernel (Linux >= 5.3 has it)"
  } catch (error) {
    return `the posix_spawn addon could not be loaded: ${error instanceof Error ? error.message : String(error)}`
  }
}

const signalName = (n: number | null): NodeJS.Signals | null => {
  if (n === null) return null
  for (const [name, value] of Object.entries(osConstants.signals)) if (value === n) return name as NodeJS.Signals
  return null
}

/** The search path of a child whose env has no PATH. */
const DEFAULT_SEARCH_PATH = "/usr/bin:/bin"

const programKey = (file: string, pathVariable: string | undefined): string => `${pathVariable ?? DEFAULT_SEARCH_PATH}\0${file}`

/** Entries kept in a launcher's PATH cache before it starts over. */
const RESOLVED_LIMIT = 256

const isExecutableFile = (file: string): boolean => {
  const stat = fs.statSync(file, { throwIfNoEntry: false })
  return stat !== undefined && stat.isFile() && (stat.mode & 0o111) !== 0
}

/**
 * Where a program runs from: a name with a slash as it is (relative to the child's cwd), a bare
 * name looked for on the child's PATH (cached per PATH and name when PATH has only absolute
 * folders). Undefined when not found.
 */
const resolveProgram = (
  cache: Map<string, string>,
  file: string,
  pathVariable: string | undefined,
  cwd: string | undefined
): string | undefined => {
  if (file.includes("/")) return file
  const searchPath = pathVariable ?? DEFAULT_SEARCH_PATH
  const key = programKey(file, pathVariable)
  const hit = cache.get(key)
  if (hit !== undefined) return hit
  let cacheable = true
  for (const folder of searchPath.split(":")) {
    if (!folder.startsWith("/")) cacheable = false
    const candidate = path.resolve(cwd ?? process.cwd(), folder, file)
    if (!isExecutableFile(candidate)) continue
    if (cacheable) {
      if (cache.size >= RESOLVED_LIMIT) cache.clear()
      cache.set(key, candidate)
    }
    return candidate
  }
  return undefined
}

const launchError = (file: string, code: string, errno: number): NodeJS.ErrnoException =>
  Object.assign(new Error(`spawn ${file} ${code}`), { code, errno, syscall: `spawn ${file}`, path: file })

/** The addon refused a launch: a cached resolution of `file` may be stale (the program was removed), so it goes; the error as `child_process` words it. */
const startFailure = (
  cache: Map<string, string>,
  file: string,
  program: string,
  pathVariable: string | undefined,
  error: unknown
): NodeJS.ErrnoException => {
  if (program !== file) cache.delete(programKey(file, pathVariable))
  const e = error as NodeJS.ErrnoException
  return launchError(file, e.code ?? "EUNKNOWN", e.errno ?? -1)
}

/** A process started by the addon, shaped like a `ChildProcess`. */
class NativeChild extends EventEmitter {
  pid: number | undefined = undefined
  stdin: net.Socket | null = null
  stdout: net.Socket | null = null
  stderr: net.Socket | null = null
  exitCode: number | null = null
  signalCode: NodeJS.Signals | null = null
  private exited = false
  private openStreams = 0

  readonly kill = (signal: NodeJS.Signals | number = "SIGTERM"): boolean => {
    // once reaped, the pid may belong to someone else
    if (this.exited || this.pid === undefined) return false
    try {
      process.kill(this.pid, signal)
      return true
    } catch {
      return false
    }
  }

  readonly unref = (): void => {
    // the pidfd watch is let go at launch (LaunchOptions.unref); here, the pipes
    this.stdin?.unref()
    this.stdout?.unref()
    this.stderr?.unref()
  }

  onExit(code: number | null, signal: number | null): void {
    this.exited = true
    this.exitCode = code
    this.signalCode = signalName(signal)
    this.emit("exit", this.exitCode, this.signalCode)
    this.maybeClose()
  }

  readFrom(fd: number): net.Socket {
    const socket = new net.Socket({ fd, readable: true, writable: false })
    this.openStreams++
    socket.once("close", () => {
      this.openStreams--
      this.maybeClose()
    })
    return socket
  }

  private maybeClose(): void {
    if (this.exited && this.openStreams === 0) this.emit("close", this.exitCode, this.signalCode)
  }
}

const envArray = (env: NodeJS.ProcessEnv | Readonly<Record<string, string>>): Array<string> => {
  const entries: Array<string> = []
  for (const key in env) {
    const value = env[key]
    if (value !== undefined) entries.push(`${key}=${value}`)
  }
  return entries
}

/**
 * Starts `file` through the addon. A failure to start (not found, not executable, a bad cwd) is
 * an `error` event on the next tick, as with `child_process`.
 * @category constructors
 */
export const nativeLaunch = (
  addon: NativeAddon,
  cache: Map<string, string>,
  file: string,
  args: ReadonlyArray<string>,
  options: LaunchOptions
): Launched => {
  const child = new NativeChild()
  const program = resolveProgram(cache, file, options.env["PATH"], options.cwd)
  if (program === undefined) {
    process.nextTick(() => child.emit("error", launchError(file, "ENOENT", -osConstants.errno.ENOENT)))
    return child as unknown as Launched
  }
  let started: { readonly pid: number; readonly fds: ReadonlyArray<number> }
  try {
    started = addon.spawn(
      program,
      [file, ...args],
      envArray(options.env),
      options.cwd ?? null,
      options.stdio.map((entry) => (entry === "pipe" ? PIPE : IGNORE)),
      { setpgroup: options.detached ?? false, unref: options.unref ?? false },
      (code, signal) => child.onExit(code, signal)
    )
  } catch (error) {
    const failure = startFailure(cache, file, program, options.env["PATH"], error)
    process.nextTick(() => child.emit("error", failure))
    return child as unknown as Launched
  }
  child.pid = started.pid
  const [stdin, stdout, stderr] = started.fds
  if (stdin !== undefined && stdin >= 0) child.stdin = new net.Socket({ fd: stdin, readable: false, writable: true })
  if (stdout !== undefined && stdout >= 0) child.stdout = child.readFrom(stdout)
  if (stderr !== undefined && stderr >= 0) child.stderr = child.readFrom(stderr)
  return child as unknown as Launched
}

/** Options of a PTY launch. @category models */
export interface PtyLaunchOptions {
  readonly cwd: string
  readonly env: NodeJS.ProcessEnv | Readonly<Record<string, string>>
  readonly cols: number
  readonly rows: number
}

/** A process on a pseudo-terminal of ours. @category models */
export interface LaunchedPty {
  readonly pid: number
  /** The master side: the terminal's output (its end, EIO included, is `end`/`close`). */
  readonly master: net.Socket
  /**
   * Our own descriptor of the slave side (non-blocking): the terminal stays open until it is
   * closed (a session leader's exit discards what is still queued otherwise).
   */
  readonly slave: { fd: number | undefined }
  /** Writes to the terminal's input; `done` gets the error when it cannot (the PTY is gone). */
  readonly write: (data: string, done: (error?: Error) => void) => void
  readonly resize: (cols: number, rows: number) => void
  /** Told the process's end (code, or the signal's name), once it is reaped. */
  readonly onExit: (listener: (code: number | null, signal: NodeJS.Signals | null) => void) => void
}

/** How long a PTY input write waits between tries while the terminal's input is full (ms). */
const PTY_WRITE_RETRY_MS = 5

const closeQuietly = (fd: number) => {
  try {
    fs.closeSync(fd)
  } catch {
    // already closed
  }
}

/**
 * Starts `file` on a new pseudo-terminal: the child leads a new session and opens the slave as
 * fds 0-2 (its controlling terminal). Throws a `child_process`-like error when it cannot start.
 * @category constructors
 */
export const nativeLaunchPty = (
  addon: NativeAddon,
  cache: Map<string, string>,
  file: string,
  args: ReadonlyArray<string>,
  options: PtyLaunchOptions
): LaunchedPty => {
  const program = resolveProgram(cache, file, options.env["PATH"], options.cwd)
  if (program === undefined) throw launchError(file, "ENOENT", -osConstants.errno.ENOENT)
  const pty = addon.openPty(options.cols, options.rows)
  const listeners: Array<(code: number | null, signal: NodeJS.Signals | null) => void> = []
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
  let pid: number
  try {
    pid = addon.spawn(
      program,
      [file, ...args],
      envArray(options.env),
      options.cwd,
      [IGNORE, IGNORE, IGNORE],
      { setsid: true, tty: pty.path },
      (code, signal) => {
        exit = { code, signal: signalName(signal) }
        for (const listener of listeners) listener(exit.code, exit.signal)
      }
    ).pid
  } catch (error) {
    closeQuietly(pty.master)
    closeQuietly(pty.slave)
    throw startFailure(cache, file, program, options.env["PATH"], error)
  }
  // a TTY stream (libuv reads it on the loop; writes go through `write` below, never blocking)
  const master: net.Socket = new tty.ReadStream(pty.master)
  // Linux answers a read of a master whose slaves are all closed with EIO: that is its end
  master.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EIO") master.destroy()
  })
  const slave = { fd: pty.slave as number | undefined }
  const write = (data: string, done: (error?: Error) => void) => {
    const bytes = Buffer.from(data, "utf8")
    let sent = 0
    const attempt = () => {
      if (master.destroyed) return done(new Error("the terminal is closed"))
      try {
        sent += fs.writeSync(pty.master, bytes, sent, bytes.length - sent)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return done(error as Error)
      }
      if (sent >= bytes.length) return done()
      setTimeout(attempt, PTY_WRITE_RETRY_MS)
    }
    attempt()
  }
  return {
    pid,
    master,
    slave,
    write,
    resize: (cols, rows) => {
      if (!master.destroyed) addon.resize(pty.master, cols, rows)
    },
    onExit: (listener) => {
      if (exit !== undefined) listener(exit.code, exit.signal)
      else listeners.push(listener)
    }
  }
}
