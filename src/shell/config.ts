/**
 * The shell room's settings, with the reference defaults. Read once when a session's shell
 * services are built; override with `Effect.provideService(ShellConfig, …)` around the session
 * layer, or, for sessions on the defaults, with the environment (`TOOLWRIGHT_SHELL_PTY=0` turns the
 * PTY off).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import { DEFAULT_KILL_GRACE_MS } from "../process/index.js"
import { DEFAULT_SCREEN_SIZE, type ScreenSize } from "./terminal/screen.js"

/** Default foreground timeout (§9.4). @category constants */
export const DEFAULT_TIMEOUT_MS = 120_000
/** Largest timeout a call may ask for. @category constants */
export const MAX_TIMEOUT_MS = 600_000
/** Live output is sent at most this often. @category constants */
export const OUTPUT_UPDATE_INTERVAL_MS = 1_000
/** The shell tool's own output budget (§9.1). @category constants */
export const SHELL_MAX_OUTPUT_CHARS = 30_000
/** Preview size when the shell's output is truncated (§9.4 step 7). @category constants */
export const SHELL_PREVIEW_CHARS = 4_000

/** Every setting of the shell room. @category models */
export interface ShellSettings {
  /** `auto`: a PTY when node-pty loads, else pipes; `off`: always pipes. */
  readonly pty: "auto" | "off"
  /** The module that provides the PTY (node-pty's API); tests point it elsewhere to exercise the fallback. */
  readonly ptyModule: string
  /** The shell that runs `-c <command>`. */
  readonly shell: string
  /** Time between SIGTERM and SIGKILL on cancel, timeout and task_stop. */
  readonly killGraceMs: number
  /** Foreground timeout when a call gives none (0 disables). */
  readonly defaultTimeoutMs: number
  /** Plain-text characters of one command kept in memory before spilling to a file. */
  readonly memoryChars: number
  /** Largest captured output of one command (the spill file, or a background output file), in bytes. */
  readonly maxCapturedBytes: number
  /** Characters of head and tail kept in memory once output spilled. */
  readonly spillHeadChars: number
  readonly spillTailChars: number
  /** Minimum time between live output updates. */
  readonly liveIntervalMs: number
  /** PTY size. */
  readonly screen: ScreenSize
  /** Extra environment of every command. */
  readonly env: Readonly<Record<string, string>>
  /** Finished background shells kept in the registry. */
  readonly maxRetainedBackground: number
  /**
   * A foreground command silent this long while it waits on its terminal (a prompt) moves to the
   * background shells instead of hanging until its timeout (0: never).
   */
  readonly autoBackgroundIdleMs: number
  /** A foreground command still running after this long moves to the background shells (0: never). */
  readonly autoBackgroundWallMs: number
}

/** Default of {@link ShellSettings.autoBackgroundIdleMs}. @category constants */
export const AUTO_BACKGROUND_IDLE_MS = 3_000

/** The defaults. @category constants */
export const DEFAULT_SHELL_SETTINGS: ShellSettings = {
  pty: "auto",
  ptyModule: "node-pty",
  shell: "bash",
  killGraceMs: DEFAULT_KILL_GRACE_MS,
  defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
  memoryChars: 1024 * 1024,
  maxCapturedBytes: 1024 * 1024 * 1024,
  spillHeadChars: 64 * 1024,
  spillTailChars: 64 * 1024,
  liveIntervalMs: OUTPUT_UPDATE_INTERVAL_MS,
  screen: DEFAULT_SCREEN_SIZE,
  env: {},
  maxRetainedBackground: 32,
  autoBackgroundIdleMs: AUTO_BACKGROUND_IDLE_MS,
  autoBackgroundWallMs: 0
}

/**
 * The shell settings: the defaults unless a value is provided. The environment is applied to the
 * defaults by {@link settingsInEffect} each time a session's host is built (a Reference's default
 * is computed once per process, so it must not read the environment itself).
 *
 * @category references
 */
export const ShellConfig = Context.Reference<ShellSettings>("toolwright/shell/ShellConfig", {
  defaultValue: () => DEFAULT_SHELL_SETTINGS
})

/**
 * The settings a session uses: provided settings as they are; the defaults with
 * `TOOLWRIGHT_SHELL_PTY=0|off|false` turning the PTY off, `TOOLWRIGHT_AUTO_BACKGROUND_IDLE_MS` and
 * `TOOLWRIGHT_AUTO_BACKGROUND_AFTER_MS` setting the auto-background limits (milliseconds, 0: off).
 *
 * @category constructors
 */
export const settingsInEffect = (settings: ShellSettings, env: NodeJS.ProcessEnv = process.env): ShellSettings => {
  if (settings !== DEFAULT_SHELL_SETTINGS) return settings
  const pty = env["TOOLWRIGHT_SHELL_PTY"]
  const idle = millisFrom(env["TOOLWRIGHT_AUTO_BACKGROUND_IDLE_MS"])
  const wall = millisFrom(env["TOOLWRIGHT_AUTO_BACKGROUND_AFTER_MS"])
  const ptyOff = pty === "0" || pty === "off" || pty === "false"
  if (!ptyOff && idle === undefined && wall === undefined) return settings
  return {
    ...settings,
    ...(ptyOff ? { pty: "off" as const } : {}),
    ...(idle !== undefined ? { autoBackgroundIdleMs: idle } : {}),
    ...(wall !== undefined ? { autoBackgroundWallMs: wall } : {})
  }
}

/** A whole number of milliseconds (0 or more) from the environment; anything else is ignored. */
const millisFrom = (value: string | undefined): number | undefined =>
  value !== undefined && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined
