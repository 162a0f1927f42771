/**
 * The per-project state directory: `~/.toolwright/projects/<key>` where `<key>` is the first 16 hex
 * digits of sha256(first real workspace root). Overridable by an explicit option and by the
 * `TOOLWRIGHT_STATE_DIR` environment variable (the option wins). Directories are created 0700 on
 * demand, never at start-up.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import * as os from "node:os"
import * as path from "node:path"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ConfigError } from "effect/Config"
import { FileWriteFailure, type NoSpaceLeft, type PermissionDenied, writeRefusalWith } from "../tool/index.js"
import { chmod, type DiskError, mkdirp } from "../disk/index.js"

/** The environment variable that overrides the state directory. @category constants */
export const STATE_DIR_ENV = "TOOLWRIGHT_STATE_DIR"

/** The subdirectories a session may create under its state directory. @category constants */
export const STATE_SUBDIRS = ["outputs", "todos", "tasks", "history", "sessions", "cluster", "unsaved-sessions"] as const

/** One of {@link STATE_SUBDIRS}. @category models */
export type StateSubdir = (typeof STATE_SUBDIRS)[number]

/** Mode of every directory the state layer creates: owner only. @category constants */
export const STATE_DIR_MODE = 0o700

/** The first 16 hex digits of sha256 of a (real) root path: the project key. @category constructors */
export const projectKey = (realRoot: string): string =>
  createHash("sha256").update(realRoot).digest("hex").slice(0, 16)

/** `<home>/.toolwright/projects/<projectKey(realRoot)>`. @category constructors */
export const defaultStateDir = (realRoot: string, home: string = os.homedir()): string =>
  path.join(home, ".toolwright", "projects", projectKey(realRoot))

/** The state directory: `option` if given, else `TOOLWRIGHT_STATE_DIR` (read through `Config`), else the default. @category constructors */
export const resolveStateDir: (realRoot: string, option?: string) => Effect.Effect<string, ConfigError> = Effect
  .fnUntraced(function*(realRoot: string, option?: string) {
  if (option !== undefined && option !== "") return path.resolve(option)
  const env = yield* Config.option(Config.String(STATE_DIR_ENV))
  if (Option.isSome(env) && env.value !== "") return path.resolve(env.value)
  return defaultStateDir(realRoot)
})

const mkdirFailure = (dir: string, e: DiskError): PermissionDenied | NoSpaceLeft | FileWriteFailure => {
  const message = `Could not create the session state directory ${dir} (${e.code ?? "unknown error"}). ` +
    `This is a problem of the tool host, not of your call: tell the user, who can set ${STATE_DIR_ENV} to a ` +
    `writable directory.`
  const display = `cannot create state directory ${dir}`
  return writeRefusalWith(e, { message, display }) ?? new FileWriteFailure({ message, display })
}

/** Directories from `first` (the first one `mkdir -p` created) down to `leaf`, inclusive. */
const createdChain = (first: string, leaf: string): ReadonlyArray<string> => {
  const chain: Array<string> = []
  for (let dir = leaf; ; dir = path.dirname(dir)) {
    chain.push(dir)
    if (dir === first || path.dirname(dir) === dir) break
  }
  return chain
}

/**
 * Creates `<stateDir>/<name>` (and any missing parent) with mode 0700, whatever the umask, and
 * returns its absolute path. Directories that already exist keep their mode.
 * @category constructors
 */
export const ensureStateSubdir: (
  stateDir: string,
  name: StateSubdir
) => Effect.Effect<string, PermissionDenied | NoSpaceLeft | FileWriteFailure> = Effect.fnUntraced(function*(
  stateDir: string,
  name: StateSubdir
) {
  const dir = path.join(stateDir, name)
  const first = yield* mkdirp(dir, STATE_DIR_MODE).pipe(Effect.mapError((e) => mkdirFailure(dir, e)))
  if (first !== undefined) {
    yield* Effect.forEach(createdChain(first, dir), (d) => chmod(d, STATE_DIR_MODE), { discard: true }).pipe(
      Effect.mapError((e) => mkdirFailure(dir, e))
    )
  }
  return dir
})
