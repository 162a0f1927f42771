/**
 * The launcher: how processes are started. On Linux with the addon built (`native/spawn.c`), a
 * launch is glibc's `posix_spawn` (vfork-style: the Node process is not forked, so its size does
 * not matter) and the exit is seen through a pidfd on the event loop; elsewhere, or when the addon
 * is missing, cannot load or `TOOLWRIGHT_NATIVE_SPAWN=0` is set, it is `node:child_process` as
 * before. Both hand back the same small {@link Launched} shape (a subset of `ChildProcess`).
 *
 * @since 0.1.0
 */
import { spawn as spawnChild } from "node:child_process"
import * as Context from "effect/Context"
import {
  type LaunchedPty,
  loadAddon,
  type NativeAddon,
  nativeLaunch,
  nativeLaunchPty,
  type PtyLaunchOptions
} from "./nativeSpawn.js"
import type { Readable, Writable } from "node:stream"

export type { LaunchedPty, NativeAddon, PtyLaunchOptions } from "./nativeSpawn.js"

/** Which launcher started a process. @category models */
export type LauncherName = "posix_spawn" | "child_process"

/** What a started process looks like to its caller (`ChildProcess` has this shape). @category models */
export interface Launched {
  /** Undefined when the launch failed (an `error` event follows). */
  readonly pid: number | undefined
  readonly stdin: Writable | null
  readonly stdout: Readable | null
  readonly stderr: Readable | null
  readonly exitCode: number | null
  readonly signalCode: NodeJS.Signals | null
  readonly kill: (signal?: NodeJS.Signals | number) => boolean
  /** `exit` when the process ended; `close` once it ended and its piped output reached its end. */
  on(event: "exit" | "close", listener: (code: number | null, signal: NodeJS.Signals | null) => void): this
  /** The launch failed (`code` ENOENT: not found on the child's PATH; EACCES: not executable). */
  on(event: "error", listener: (error: NodeJS.ErrnoException) => void): this
  /** The process no longer keeps the event loop alive. */
  readonly unref: () => void
}

/** Options of a launch. @category models */
export interface LaunchOptions {
  readonly cwd?: string | undefined
  /** The child's whole environment (its PATH is where a bare program name is looked for). */
  readonly env: NodeJS.ProcessEnv | Readonly<Record<string, string>>
  readonly stdio: readonly ["ignore" | "pipe", "ignore" | "pipe", "ignore" | "pipe"]
  /** The child leads a new process group. */
  readonly detached?: boolean | undefined
  /** Waiting for the process does not keep the event loop alive (its pipes: {@link Launched.unref}). */
  readonly unref?: boolean | undefined
}

/** A launcher. @category models */
export interface LauncherService {
  readonly name: LauncherName
  readonly launch: (file: string, args: ReadonlyArray<string>, options: LaunchOptions) => Launched
  /**
   * Starts a program on a pseudo-terminal of our own (posix_spawn only; otherwise the shell uses
   * node-pty). Throws a `child_process`-like error (`code`) when it cannot start.
   */
  readonly launchPty: ((file: string, args: ReadonlyArray<string>, options: PtyLaunchOptions) => LaunchedPty) | undefined
  /** Why the addon is not used, when it is not. */
  readonly fallbackReason: string | undefined
}

/** The `node:child_process` launcher. @category constructors */
export const childProcessLauncher = (fallbackReason?: string): LauncherService => ({
  name: "child_process",
  launch: (file, args, options) => {
    const child = spawnChild(file, [...args], {
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      env: options.env,
      stdio: [...options.stdio],
      detached: options.detached ?? false
    })
    if (options.unref === true) child.unref()
    return child as unknown as Launched
  },
  launchPty: undefined,
  fallbackReason
})

/** The `posix_spawn` launcher over a loaded addon. @category constructors */
export const nativeLauncher = (addon: NativeAddon): LauncherService => {
  const resolved = new Map<string, string>()
  return {
    name: "posix_spawn",
    launch: (file, args, options) => nativeLaunch(addon, resolved, file, args, options),
    launchPty: (file, args, options) => nativeLaunchPty(addon, resolved, file, args, options),
    fallbackReason: undefined
  }
}

/**
 * Picks the launcher: the addon when it loads and pidfds work, unless `TOOLWRIGHT_NATIVE_SPAWN=0`.
 * @category constructors
 */
export const makeLauncher = (env: NodeJS.ProcessEnv = process.env): LauncherService => {
  if (env["TOOLWRIGHT_NATIVE_SPAWN"] === "0") return childProcessLauncher("TOOLWRIGHT_NATIVE_SPAWN=0")
  const addon = loadAddon()
  return typeof addon === "string" ? childProcessLauncher(addon) : nativeLauncher(addon)
}

/** The launcher in use (default: {@link makeLauncher}, chosen once per process). @category services */
export const Launcher = Context.Reference<LauncherService>("toolwright/process/Launcher", {
  defaultValue: () => makeLauncher()
})
