/**
 * Stopping a local server for good: find its descendants (reference §9.8), then SIGTERM the
 * process group and every descendant, and SIGKILL whatever is still alive after a grace period.
 * Servers launched through `npx` or a shell leave grandchildren that a plain `kill` misses.
 *
 * @since 0.1.0
 */
import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { Effect } from "effect"
import { KILL_GRACE_MS, MAX_DESCENDANT_DEPTH, MAX_DESCENDANTS } from "./constants.js"

/**
 * The descendants of `root` in a `pid → ppid` table, breadth first (children before grandchildren),
 * at most {@link MAX_DESCENDANTS}, at most {@link MAX_DESCENDANT_DEPTH} levels deep; cycles ignored.
 *
 * @category process tree
 */
export const descendantsFromTable = (table: ReadonlyArray<readonly [pid: number, ppid: number]>, root: number): Array<number> => {
  if (!Number.isInteger(root) || root <= 0) return []
  const children = new Map<number, Array<number>>()
  for (const [pid, ppid] of table) {
    const list = children.get(ppid)
    if (list) list.push(pid)
    else children.set(ppid, [pid])
  }
  const out: Array<number> = []
  const seen = new Set<number>([root])
  let level = [root]
  for (let depth = 0; depth < MAX_DESCENDANT_DEPTH && level.length > 0; depth++) {
    const next: Array<number> = []
    for (const parent of level) {
      for (const child of children.get(parent) ?? []) {
        if (seen.has(child)) continue
        seen.add(child)
        if (out.length >= MAX_DESCENDANTS) return out
        out.push(child)
        next.push(child)
      }
    }
    level = next
  }
  return out
}

/** Parses `ps -A -o pid=,ppid=` output. @category process tree */
export const parsePsTable = (output: string): Array<readonly [number, number]> =>
  output.split("\n").flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s*$/.exec(line)
    return match ? [[Number(match[1]), Number(match[2])] as const] : []
  })

const run = (command: string, args: ReadonlyArray<string>): Effect.Effect<string | undefined> =>
  Effect.callback<string | undefined>((resume) => {
    const child = execFile(command, args, { timeout: 2_000, maxBuffer: 8 * 1024 * 1024 }, (error, stdout) => {
      resume(Effect.succeed(error ? undefined : stdout))
    })
    return Effect.sync(() => child.kill())
  })

/**
 * The descendants of a live process (POSIX `ps`, falling back to `pgrep -P`); `[]` on any failure
 * or on Windows.
 *
 * @category process tree
 */
export const listDescendantPids = (root: number): Effect.Effect<Array<number>> =>
  Effect.gen(function*() {
    if (!Number.isInteger(root) || root <= 0 || process.platform === "win32") return []
    const ps = yield* run("ps", ["-A", "-o", "pid=,ppid="])
    if (ps !== undefined) return descendantsFromTable(parsePsTable(ps), root)
    // Fallback: one pgrep per level.
    const table: Array<readonly [number, number]> = []
    let level = [root]
    for (let depth = 0; depth < MAX_DESCENDANT_DEPTH && level.length > 0; depth++) {
      const next: Array<number> = []
      for (const parent of level) {
        const out = yield* run("pgrep", ["-P", String(parent)])
        for (const pid of (out ?? "").split(/\s+/).filter(Boolean).map(Number)) {
          table.push([pid, parent])
          next.push(pid)
        }
      }
      level = next
    }
    return descendantsFromTable(table, root)
  })

const isZombie = (pid: number): boolean => {
  if (process.platform !== "linux") return false
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z"
  } catch {
    return false
  }
}

/** True while a process exists and has not exited (signal 0 probe; zombies count as dead). @category process tree */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return !isZombie(pid)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const signal = (pid: number, sig: NodeJS.Signals): boolean => {
  try {
    process.kill(pid, sig)
    return true
  } catch {
    return false
  }
}

/**
 * Stops a process and its descendants: SIGTERM to the process group (when `group`), the process and
 * every descendant found before the first signal; after `graceMs`, SIGKILL to the survivors.
 * Returns how many processes were signalled.
 *
 * @category process tree
 */
export const killProcessTree = (
  pid: number,
  options: { readonly group?: boolean | undefined; readonly graceMs?: number | undefined } = {}
): Effect.Effect<number> =>
  Effect.gen(function*() {
    const descendants = yield* listDescendantPids(pid)
    const all = [pid, ...descendants]
    const group = options.group === true && process.platform !== "win32"
    let signalled = 0
    if (group) signal(-pid, "SIGTERM")
    for (const p of all) if (signal(p, "SIGTERM")) signalled++
    const deadline = Date.now() + (options.graceMs ?? KILL_GRACE_MS)
    while (all.some(isAlive) && Date.now() < deadline) yield* Effect.sleep("25 millis")
    if (group) signal(-pid, "SIGKILL")
    for (const p of all) if (isAlive(p)) signal(p, "SIGKILL")
    return signalled
  })
