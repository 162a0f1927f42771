/**
 * The command sandbox: what a command started by toolwright may read, write and reach.
 *
 * - `workspace-write` (default): the whole file system is readable, but only the workspace roots,
 *   the state dir, directories added with `writable` and a private temp dir (`TMPDIR`) are
 *   writable; credential paths (`~/.ssh`, `~/.aws`, … the `denyRead` list) are not even readable.
 * - `read-only`: nothing is writable but the private temp dir; credential paths are hidden too.
 * - `off`: no confinement (the environment policy still applies).
 *
 * The network is off (only the sandbox's own loopback) unless `network` is on.
 *
 * On Linux the sandbox is bubblewrap (`bwrap`): a mount namespace (`/` bound read-only, the
 * writable directories bound over it, credential paths covered by an empty tmpfs or `/dev/null`),
 * fresh user, pid, ipc, uts, cgroup and (unless the network is on) net namespaces, no
 * capabilities, and `--die-with-parent`, so that every process of a command dies with the server,
 * even on SIGKILL. Landlock would need a native helper from Node; bwrap is one exec away and
 * costs a few milliseconds (see docs/security.md). On macOS the same settings become a
 * `sandbox-exec` profile (typed, documented, untested here).
 *
 * When the sandbox cannot start (bwrap missing, user namespaces disabled), commands fail with
 * `sandbox_unavailable`; there is never a silent fallback to no sandbox.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { type LaunchQueueTimeout, SandboxUnavailable } from "../tool/index.js"
import { splitList } from "./environment.js"
import { gatedLaunch, LaunchGate } from "./launchGate.js"
import { Launcher } from "./launcher.js"

/** How commands are confined. @category models */
export type SandboxMode = "read-only" | "workspace-write" | "off"

/** Every mode, strictest first. @category constants */
export const SANDBOX_MODES: ReadonlyArray<SandboxMode> = ["read-only", "workspace-write", "off"]

/** Credential paths hidden from commands in every sandboxed mode (`~` is the home directory). @category constants */
export const DEFAULT_DENY_READ: ReadonlyArray<string> = [
  "~/.ssh",
  "~/.aws",
  "~/.azure",
  "~/.config/gcloud",
  "~/.config/gh",
  "~/.gnupg",
  "~/.docker/config.json",
  "~/.netrc",
  "~/.kube",
  "~/.npmrc",
  "~/.pypirc",
  "~/.git-credentials",
  "~/.password-store",
  "~/.terraform.d/credentials.tfrc.json"
]

/** The sandbox as a session is configured with it (every field optional). @category models */
export interface SandboxOptions {
  /** Default `workspace-write` (env `TOOLWRIGHT_SANDBOX`). */
  readonly mode?: SandboxMode | undefined
  /** Network access from inside the sandbox. Default off (env `TOOLWRIGHT_SANDBOX_NETWORK`). */
  readonly network?: boolean | undefined
  /** More writable directories (env `TOOLWRIGHT_SANDBOX_WRITABLE`, path-delimited). */
  readonly writable?: ReadonlyArray<string> | undefined
  /** Paths hidden from commands; replaces {@link DEFAULT_DENY_READ} when given. */
  readonly denyRead?: ReadonlyArray<string> | undefined
  /** The bubblewrap binary (env `TOOLWRIGHT_BWRAP`, default `bwrap` on the PATH). */
  readonly bwrapPath?: string | undefined
  /** Variable names (or `PREFIX*`) commands inherit besides the default allow-list (env `TOOLWRIGHT_ENV_ALLOW`). */
  readonly envAllow?: ReadonlyArray<string> | undefined
}

/** The sandbox in effect: every field decided. @category models */
export interface SandboxSettings {
  readonly mode: SandboxMode
  readonly network: boolean
  readonly writable: ReadonlyArray<string>
  readonly denyRead: ReadonlyArray<string>
  readonly bwrapPath: string
  readonly envAllow: ReadonlyArray<string>
}

/**
 * The session's sandbox options. Sessions built with `SessionLayer.layer` provide the resolved
 * `sandbox` option; elsewhere the environment decides when the host is built.
 *
 * @category references
 */
export const SandboxConfig = Context.Reference<SandboxOptions>("toolwright/process/SandboxConfig", {
  defaultValue: () => ({})
})

const parseBoolean = (value: string): boolean | undefined =>
  /^(1|on|true|yes)$/i.test(value) ? true : /^(0|off|false|no)$/i.test(value) ? false : undefined

/**
 * Decides every setting: explicit options win, then the `TOOLWRIGHT_SANDBOX*` / `TOOLWRIGHT_BWRAP`
 * / `TOOLWRIGHT_ENV_ALLOW` variables, then the defaults. Returns a message naming the first
 * unusable value instead.
 *
 * @category constructors
 */
export const resolveSandboxSettings = (
  options: SandboxOptions = {},
  env: Readonly<Record<string, string | undefined>> = process.env
): SandboxSettings | { readonly problem: string } => {
  const read = (name: string) => {
    const v = env[name]?.trim()
    return v === undefined || v === "" ? undefined : v
  }
  const modeText = read("TOOLWRIGHT_SANDBOX")
  if (options.mode === undefined && modeText !== undefined && !SANDBOX_MODES.includes(modeText as SandboxMode)) {
    return { problem: `TOOLWRIGHT_SANDBOX must be one of ${SANDBOX_MODES.join(", ")}, got "${modeText}".` }
  }
  const networkText = read("TOOLWRIGHT_SANDBOX_NETWORK")
  const network = networkText === undefined ? undefined : parseBoolean(networkText)
  if (options.network === undefined && networkText !== undefined && network === undefined) {
    return { problem: `TOOLWRIGHT_SANDBOX_NETWORK must be on or off, got "${networkText}".` }
  }
  const writableText = read("TOOLWRIGHT_SANDBOX_WRITABLE")
  return {
    mode: options.mode ?? (modeText as SandboxMode | undefined) ?? "workspace-write",
    network: options.network ?? network ?? false,
    writable: options.writable ?? (writableText === undefined ? [] : writableText.split(path.delimiter).filter((p) => p !== "")),
    denyRead: options.denyRead ?? DEFAULT_DENY_READ,
    bwrapPath: options.bwrapPath ?? read("TOOLWRIGHT_BWRAP") ?? "bwrap",
    envAllow: options.envAllow ?? splitList(read("TOOLWRIGHT_ENV_ALLOW"))
  }
}

/**
 * Why the settings' extra writable directories cannot be used, or undefined: each must exist, be a
 * directory and not be `/` (a writable `/` is no sandbox: say `off` instead). Checked when a session
 * starts, so a mistyped `--sandbox-writable` stops the start instead of being dropped silently.
 * @category constructors
 */
export const writableProblem = (settings: SandboxSettings): string | undefined => {
  if (settings.mode !== "workspace-write") return undefined
  for (const raw of settings.writable) {
    const dir = path.resolve(expandHome(raw))
    const real = realPathOrUndefined(dir)
    if (real === undefined) return `The sandbox's writable directory ${dir} does not exist: create it, or drop it from --sandbox-writable / TOOLWRIGHT_SANDBOX_WRITABLE.`
    if (!fs.statSync(real).isDirectory()) return `The sandbox's writable path ${dir} is not a directory: name a directory in --sandbox-writable / TOOLWRIGHT_SANDBOX_WRITABLE.`
    if (real === "/") return `The sandbox cannot make / writable (that is no sandbox): use --sandbox off to run commands unconfined.`
  }
  return undefined
}

/** The settings a host uses when the environment holds an unusable value: that value is ignored. @category constructors */
export const sandboxSettingsOrDefault = (options: SandboxOptions = {}, env: Readonly<Record<string, string | undefined>> = process.env): SandboxSettings => {
  const resolved = resolveSandboxSettings(options, env)
  return "problem" in resolved ? (resolveSandboxSettings(options, {}) as SandboxSettings) : resolved
}

/** `~/x` → the home directory's `x`. @category paths */
export const expandHome = (p: string, home: string = os.homedir()): string =>
  p === "~" ? home : p.startsWith("~/") ? path.join(home, p.slice(2)) : p

/** What one confined process may write, besides the settings' own `writable`. @category models */
export interface SandboxScope {
  /** Writable in `workspace-write` (workspace roots, state dir, the command's directory). */
  readonly writable: ReadonlyArray<string>
  /** The private temp dir (writable in every sandboxed mode; the command's `TMPDIR`). */
  readonly tmpDir: string
  readonly cwd: string
}

/** A program and its arguments. @category models */
export interface CommandLine {
  readonly file: string
  readonly args: ReadonlyArray<string>
}

/**
 * The real path of `p`, or undefined when it does not exist. One `realpath(3)` (`realpathSync.native`)
 * instead of the JS walk that lstats every component: the sandbox resolves a dozen paths per command.
 */
const realPathOrUndefined = (p: string): string | undefined => {
  try {
    return fs.realpathSync.native(p)
  } catch {
    return undefined
  }
}

/** What `p` is, or undefined when it cannot be seen (missing: no exception is made for that case; a file on its way: ENOTDIR). */
const statOrUndefined = (p: string): fs.Stats | undefined => {
  try {
    return fs.statSync(p, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

/** The directories a confined process may write, real paths, deduplicated, parents before children. @category paths */
export const writableDirs = (settings: SandboxSettings, scope: SandboxScope): Array<string> => {
  const wanted = settings.mode === "workspace-write" ? [...scope.writable, ...settings.writable.map((p) => expandHome(p)), scope.tmpDir] : [scope.tmpDir]
  const real = new Set<string>()
  // the command's directory is usually a root: each path is resolved once
  for (const p of new Set(wanted)) {
    const r = realPathOrUndefined(p)
    if (r !== undefined && r !== "/") real.add(r)
  }
  return [...real].sort((a, b) => a.split(path.sep).length - b.split(path.sep).length || a.localeCompare(b))
}

/** The deny list with `~` expanded; real paths where they exist. @category paths */
export const deniedPaths = (settings: SandboxSettings): Array<{ readonly path: string; readonly directory: boolean }> => {
  const out: Array<{ path: string; directory: boolean }> = []
  const seen = new Set<string>()
  const home = os.homedir()
  for (const raw of settings.denyRead) {
    const wanted = expandHome(raw, home)
    // Most of the list does not exist: one stat (no exception, no stack trace) says so. Checked at
    // every command, not cached, so that a credential file created meanwhile is hidden too.
    const stats = statOrUndefined(wanted)
    if (stats === undefined) continue
    const p = realPathOrUndefined(wanted)
    // undefined: vanished meanwhile, nothing to hide
    if (p === undefined || seen.has(p)) continue
    seen.add(p)
    out.push({ path: p, directory: stats.isDirectory() })
  }
  return out
}

/** The bubblewrap arguments that confine `command` (Linux). @category constructors */
export const bwrapArgs = (settings: SandboxSettings, scope: SandboxScope, command: CommandLine): Array<string> => {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--tmpfs", "/dev/shm", "--proc", "/proc", "--unshare-all"]
  if (settings.network) args.push("--share-net")
  args.push("--die-with-parent", "--cap-drop", "ALL")
  for (const dir of writableDirs(settings, scope)) args.push("--bind", dir, dir)
  // Last, so that a credential path inside a writable directory stays hidden.
  for (const denied of deniedPaths(settings)) {
    if (denied.directory) args.push("--tmpfs", denied.path, "--remount-ro", denied.path)
    else args.push("--ro-bind", "/dev/null", denied.path)
  }
  args.push("--chdir", scope.cwd, "--", command.file, ...command.args)
  return args
}

const sbplString = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, "\\\"")}"`

/** The `sandbox-exec` profile of the same settings (macOS; untested here). @category constructors */
export const seatbeltProfile = (settings: SandboxSettings, scope: SandboxScope): string => {
  const lines = ["(version 1)", "(allow default)", "(deny file-write*)"]
  const writable = [...writableDirs(settings, scope).map((d) => `(subpath ${sbplString(d)})`), "(literal \"/dev/null\")", "(literal \"/dev/tty\")", "(subpath \"/dev/fd\")"]
  lines.push(`(allow file-write* ${writable.join(" ")})`)
  for (const denied of deniedPaths(settings)) {
    lines.push(`(deny file-read* file-write* (${denied.directory ? "subpath" : "literal"} ${sbplString(denied.path)}))`)
  }
  if (!settings.network) lines.push("(deny network*)", "(allow network* (remote unix-socket))")
  return lines.join("\n")
}

/** The path of `sandbox-exec` on macOS. @category constants */
export const SANDBOX_EXEC = "/usr/bin/sandbox-exec"

/**
 * The command line that runs `command` confined by `settings` (unchanged when the mode is `off`).
 *
 * @category constructors
 */
export const confine = (settings: SandboxSettings, scope: SandboxScope, command: CommandLine, platform: NodeJS.Platform = process.platform): CommandLine => {
  if (settings.mode === "off") return command
  if (platform === "darwin") return { file: SANDBOX_EXEC, args: ["-p", seatbeltProfile(settings, scope), command.file, ...command.args] }
  return { file: settings.bwrapPath, args: bwrapArgs(settings, scope, command) }
}

const OFF_HINT = "To run commands without the sandbox, start toolwright with `--sandbox off` (or TOOLWRIGHT_SANDBOX=off, or the session option sandbox: { mode: \"off\" })."

/** How long the sandbox check may run before it is killed (ms). */
const PROBE_TIMEOUT_MS = 10_000

const run = (file: string, args: ReadonlyArray<string>) =>
  gatedLaunch("the sandbox check", ({ spawned }) =>
    Effect.flatMap(Launcher, (launcher) =>
      Effect.callback<{ readonly error: string | undefined; readonly stderr: string }>((resume) => {
        const child = launcher.launch(file, args, {
          env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
          stdio: ["ignore", "ignore", "pipe"]
        })
        spawned()
        const stderr: Array<Buffer> = []
        child.stderr?.on("data", (chunk: Buffer) => void stderr.push(chunk))
        const timer = setTimeout(() => child.kill("SIGTERM"), PROBE_TIMEOUT_MS)
        const done = (error: string | undefined) => {
          clearTimeout(timer)
          resume(Effect.succeed({ error, stderr: Buffer.concat(stderr).toString("utf8").trim() }))
        }
        child.on("error", (error) => done(error.code === "ENOENT" ? "ENOENT" : error.message))
        child.on("close", (code, signal) =>
          done(code === 0 ? undefined : `Command failed: ${file} (${signal ?? `exit code ${code}`})`))
      })))

/**
 * Checks once that the sandbox can start here: bwrap found and able to create its namespaces
 * (Linux), `sandbox-exec` present (macOS). Fails with {@link SandboxUnavailable} saying what is
 * missing and how to choose `--sandbox off`.
 *
 * @category checks
 */
export const probeSandbox = (
  settings: SandboxSettings,
  platform: NodeJS.Platform = process.platform
): Effect.Effect<void, SandboxUnavailable | LaunchQueueTimeout> =>
  Effect.gen(function*() {
    if (settings.mode === "off") return
    const fail = (what: string) =>
      new SandboxUnavailable({
        message: `The command sandbox (${settings.mode}) cannot start: ${what} Nothing was run. ${OFF_HINT}`,
        display: `Sandbox unavailable: ${what}`
      })
    if (platform === "darwin") {
      if (!fs.existsSync(SANDBOX_EXEC)) return yield* fail(`${SANDBOX_EXEC} is missing.`)
      return
    }
    if (platform !== "linux") return yield* fail(`there is no sandbox for the platform ${platform} (Linux uses bubblewrap, macOS sandbox-exec).`)
    const probe = yield* run(settings.bwrapPath, ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--die-with-parent", "--cap-drop", "ALL", "--", "true"])
    if (probe.error === "ENOENT") {
      return yield* fail(
        `bubblewrap was not found (looked for "${settings.bwrapPath}"${settings.bwrapPath.includes("/") ? "" : " on the PATH"}). Install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) or point TOOLWRIGHT_BWRAP at it.`
      )
    }
    if (probe.error !== undefined) {
      return yield* fail(
        `bubblewrap ("${settings.bwrapPath}") could not create the sandbox's namespaces: ${probe.stderr || probe.error}. User namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0, or an AppArmor rule for bwrap on Ubuntu 24.04).`
      )
    }
  })

/** How long a failed sandbox check is believed before it is tried again (bwrap installed meanwhile). @category constants */
export const SANDBOX_FAILURE_TTL = Duration.seconds(30)

/**
 * How long a sandbox check's outcome is kept: a success for the life of the process, a
 * `sandbox_unavailable` for {@link SANDBOX_FAILURE_TTL}, a check given up in the launch queue not
 * at all (the next command tries again).
 *
 * @category checks
 */
export const sandboxCheckTtl = (exit: Exit.Exit<unknown, { readonly _tag: string }>): Duration.Duration =>
  Exit.isSuccess(exit)
    ? Duration.infinity
    : Option.exists(Exit.findErrorOption(exit), (e) => e._tag === "SandboxUnavailable")
    ? SANDBOX_FAILURE_TTL
    : Duration.zero

/**
 * The sandbox check of `settings` as callers should run it: {@link probeSandbox} once per process
 * when there is a {@link LaunchGate} (its `checks`, keyed by what the probe depends on: mode,
 * bwrap path, search path, platform), else once per value returned here; outcomes kept as
 * {@link sandboxCheckTtl} says.
 *
 * @category checks
 */
export const sandboxCheck = (
  settings: SandboxSettings,
  platform: NodeJS.Platform = process.platform
): Effect.Effect<Effect.Effect<void, SandboxUnavailable | LaunchQueueTimeout>> =>
  Effect.gen(function*() {
    if (settings.mode === "off") return Effect.void
    const probe = probeSandbox(settings, platform)
    const gate = yield* Effect.serviceOption(LaunchGate)
    if (Option.isNone(gate)) return yield* Effect.cachedWithTTL(probe, sandboxCheckTtl)
    const key = JSON.stringify(["sandbox", settings.mode, settings.bwrapPath, process.env["PATH"] ?? "", platform])
    return gate.value.checks.once(key, probe, sandboxCheckTtl)
  })
