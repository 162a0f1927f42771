/**
 * Process trees: listing every descendant of a process, and killing a tree so that nothing
 * survives — the process group first (SIGTERM, then SIGKILL after a grace period), then every
 * descendant the tree walk found *before* the first signal (so children that called `setsid` or
 * were re-parented still die), then every process carrying the run's environment tag (so even
 * double-forked daemons die, on Linux).
 *
 * Descendants come from one `/proc` snapshot on Linux, else one `ps -A -o pid=,ppid=` snapshot
 * (2 s timeout, 8 MiB buffer), else `pgrep -P` per process. The walk is breadth-first, at most
 * 256 descendants and 8 levels deep, and ignores cycles.
 *
 * @since 0.1.0
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/** Most descendants a walk returns. @category constants */
export const MAX_DESCENDANTS = 256
/** Deepest level a walk descends to. @category constants */
export const MAX_DEPTH = 8
/** Time limit of one process-table query. @category constants */
export const QUERY_TIMEOUT_MS = 2_000
/** Output limit of the `ps` snapshot. @category constants */
export const PS_MAX_BUFFER = 8 * 1024 * 1024
/** Default time between SIGTERM and SIGKILL. @category constants */
export const DEFAULT_KILL_GRACE_MS = 200
/** The environment variable that tags every process a session starts. @category constants */
export const PROCESS_TAG_VARIABLE = "TOOLWRIGHT_PROCESS_TAG"

/** Limits of a walk. @category models */
export interface WalkLimits {
  readonly maxDescendants?: number | undefined
  readonly maxDepth?: number | undefined
}

/**
 * Breadth-first descendants of `root` in a parent → children map (children before
 * grandchildren), within the limits; cycles and the root itself are ignored.
 *
 * @category process trees
 */
export const walkDescendants = (
  children: ReadonlyMap<number, ReadonlyArray<number>>,
  root: number,
  limits: WalkLimits = {}
): Array<number> => {
  const max = limits.maxDescendants ?? MAX_DESCENDANTS
  const maxDepth = limits.maxDepth ?? MAX_DEPTH
  if (!Number.isInteger(root) || root <= 0) return []
  const out: Array<number> = []
  const seen = new Set<number>([root])
  let level = [root]
  for (let depth = 1; depth <= maxDepth && level.length > 0; depth++) {
    const next: Array<number> = []
    for (const pid of level) {
      for (const child of children.get(pid) ?? []) {
        if (seen.has(child)) continue
        seen.add(child)
        out.push(child)
        if (out.length >= max) return out
        next.push(child)
      }
    }
    level = next
  }
  return out
}

/** Builds the parent → children map from (pid, ppid) pairs. @category process trees */
export const childrenMap = (pairs: Iterable<readonly [number, number]>): Map<number, Array<number>> => {
  const map = new Map<number, Array<number>>()
  for (const [pid, ppid] of pairs) {
    const list = map.get(ppid)
    if (list) list.push(pid)
    else map.set(ppid, [pid])
  }
  for (const list of map.values()) list.sort((a, b) => a - b)
  return map
}

/** Parses `ps -A -o pid=,ppid=` output. @category process trees */
export const parsePsOutput = (text: string): Array<readonly [number, number]> =>
  text.split("\n").flatMap((line) => {
    const m = /^\s*(\d+)\s+(\d+)\s*$/.exec(line)
    return m ? [[Number(m[1]), Number(m[2])] as const] : []
  })

const readProcPairs = (): Array<readonly [number, number]> | undefined => {
  let entries: Array<string>
  try {
    entries = fs.readdirSync("/proc")
  } catch {
    return undefined
  }
  const pairs: Array<readonly [number, number]> = []
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "latin1")
      // pid (comm) state ppid …; comm may contain spaces and parentheses
      const after = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      pairs.push([Number(name), Number(after[1])])
    } catch {
      // the process exited while we read
    }
  }
  return pairs
}

const runFile = (file: string, args: ReadonlyArray<string>) =>
  Effect.callback<string, Error>((resume) => {
    const child = execFile(file, args, { timeout: QUERY_TIMEOUT_MS, maxBuffer: PS_MAX_BUFFER, encoding: "utf8" }, (error, stdout) => {
      // pgrep exits 1 when nothing matched
      if (error && !(file === "pgrep" && (error as { readonly code?: unknown }).code === 1)) resume(Effect.fail(error))
      else resume(Effect.succeed(stdout))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** Where a walk reads the process table: `auto` (`/proc` on Linux, else `ps`), or one source. @category models */
export type ProcessTableSource = "auto" | "ps" | "pgrep"

const psPairs = Effect.map(runFile("ps", ["-A", "-o", "pid=,ppid="]), parsePsOutput)

const snapshotPairs: Effect.Effect<Array<readonly [number, number]>, Error> = Effect.suspend(() => {
  const proc = process.platform === "linux" ? readProcPairs() : undefined
  return proc ? Effect.succeed(proc) : psPairs
})

const pgrepWalk = Effect.fnUntraced(function*(root: number) {
  const out: Array<number> = []
  const seen = new Set([root])
  let level = [root]
  for (let depth = 1; depth <= MAX_DEPTH && level.length > 0 && out.length < MAX_DESCENDANTS; depth++) {
    const next: Array<number> = []
    for (const pid of level) {
      const text = yield* runFile("pgrep", ["-P", String(pid)])
      for (const child of text.split("\n").filter((l) => /^\d+$/.test(l.trim())).map(Number)) {
        if (seen.has(child) || out.length >= MAX_DESCENDANTS) continue
        seen.add(child)
        out.push(child)
        next.push(child)
      }
    }
    level = next
  }
  return out
})

/**
 * Every descendant of `root`, breadth-first, within the reference limits. Never fails: a total
 * failure (or a query over 2 s) gives `[]`; an invalid root gives `[]`.
 *
 * @category process trees
 */
export const listDescendantPids = (root: number, source: ProcessTableSource = "auto"): Effect.Effect<Array<number>> => {
  if (!Number.isInteger(root) || root <= 0) return Effect.succeed([])
  const walk = source === "pgrep"
    ? pgrepWalk(root)
    : (source === "ps" ? psPairs : snapshotPairs).pipe(
      Effect.map((pairs) => walkDescendants(childrenMap(pairs), root)),
      Effect.catch(() => pgrepWalk(root))
    )
  return walk.pipe(
    Effect.timeoutOption(Duration.millis(QUERY_TIMEOUT_MS)),
    Effect.map((o) => (o._tag === "Some" ? o.value : [])),
    Effect.catch(() => Effect.succeed([] as Array<number>))
  )
}

/** True when the process exists and is not a zombie. @category process trees */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
  if (process.platform !== "linux") return true
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1")
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
    return state !== "Z" && state !== "X"
  } catch {
    return false
  }
}

/**
 * PIDs of the processes whose environment carries the tag (exactly, or as `tag` + `.` prefix
 * when `prefix` is set). Linux only (`/proc/<pid>/environ`); elsewhere `[]`.
 *
 * @category process trees
 */
export const findTaggedPids = (tag: string, options: { readonly prefix?: boolean } = {}): Array<number> => {
  if (process.platform !== "linux" || tag.length === 0) return []
  let entries: Array<string>
  try {
    entries = fs.readdirSync("/proc")
  } catch {
    return []
  }
  const needle = `${PROCESS_TAG_VARIABLE}=${tag}`
  const out: Array<number> = []
  for (const name of entries) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    let env: string
    try {
      env = fs.readFileSync(`/proc/${name}/environ`, "latin1")
    } catch {
      continue
    }
    const at = env.startsWith(needle) ? 0 : env.indexOf(`\0${needle}`)
    if (at === -1) continue
    const start = at === 0 ? needle.length : at + 1 + needle.length
    const next = env[start]
    if (next === undefined || next === "\0" || (options.prefix === true && next === ".")) out.push(Number(name))
  }
  return out
}

/** The children of a process, from each of its threads' `/proc/<pid>/task/<tid>/children`; undefined where the kernel has no such file. */
const procChildren = (pid: number): Array<number> | undefined => {
  let tasks: Array<string>
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`)
  } catch {
    return [] // gone
  }
  const out: Array<number> = []
  for (const tid of tasks) {
    let text: string
    try {
      text = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, "latin1")
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT" && fs.existsSync(`/proc/${pid}/task/${tid}`)) return undefined
      continue // the thread ended while we read
    }
    for (const field of text.split(/\s+/)) if (field !== "") out.push(Number(field))
  }
  return out
}

/**
 * A process and its descendants (breadth-first, within {@link MAX_DESCENDANTS} and
 * {@link MAX_DEPTH}), read synchronously from the `/proc/<pid>/task/<tid>/children` files of
 * that tree only: the cost follows the tree, not the machine's process count (a scan of every
 * `/proc/<pid>` costs tens of milliseconds, and with many commands running at once it was paid by
 * each of them, every poll). `undefined` off Linux or where the kernel lacks the children files
 * (then the caller falls back to a scan); `[]` when the root is gone.
 *
 * @category process trees
 */
export const treePids = (root: number): Array<number> | undefined => {
  if (process.platform !== "linux" || !Number.isInteger(root) || root <= 0) return undefined
  const first = procChildren(root)
  if (first === undefined) return undefined
  if (!fs.existsSync(`/proc/${root}`)) return []
  const out = [root]
  const seen = new Set(out)
  let level = first
  for (let depth = 1; depth <= MAX_DEPTH && level.length > 0 && out.length <= MAX_DESCENDANTS; depth++) {
    const next: Array<number> = []
    for (const pid of level) {
      if (!Number.isInteger(pid) || seen.has(pid) || out.length > MAX_DESCENDANTS) continue
      seen.add(pid)
      out.push(pid)
      next.push(...(procChildren(pid) ?? []))
    }
    level = next
  }
  return out
}

/** The start time of a process (Linux `/proc/<pid>/stat` field 22), to tell a reused PID apart. */
const startTimeOf = (pid: number): string | undefined => {
  if (process.platform !== "linux") return undefined
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]
  } catch {
    return undefined
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

/** Sends a signal to each pid (and to the process group it may lead); returns how many were signalled. @category process trees */
export const signalPids = (pids: Iterable<number>, sig: NodeJS.Signals): number => {
  let count = 0
  for (const pid of pids) {
    if (pid <= 1 || pid === process.pid) continue
    signal(-pid, sig)
    if (signal(pid, sig)) count++
  }
  return count
}

/** Options of {@link killProcessTree}. @category models */
export interface KillTreeOptions {
  /** Time between SIGTERM and SIGKILL (default 200 ms). */
  readonly graceMs?: number | undefined
  /** Also kill every process whose environment carries this tag (Linux). */
  readonly tag?: string | undefined
  /** Match the tag as a prefix (a whole session) instead of exactly. */
  readonly tagPrefix?: boolean | undefined
  /** Whether the root leads its own process group (then the group is signalled). Default true. */
  readonly group?: boolean | undefined
}

const pollUntil = (done: () => boolean, maxMs: number) =>
  Effect.gen(function*() {
    const deadline = Date.now() + maxMs
    while (!done() && Date.now() < deadline) yield* Effect.sleep(Duration.millis(10))
  })

/**
 * Kills a process tree: walk the descendants, SIGTERM the group, the descendants and the tagged
 * processes, wait up to the grace period, walk again from every survivor, then SIGKILL them all
 * and wait (up to 2 s) until none is alive. Returns the PIDs that were targeted.
 *
 * @category process trees
 */
export const killProcessTree = (root: number, options: KillTreeOptions = {}): Effect.Effect<ReadonlyArray<number>> =>
  Effect.gen(function*() {
    const grace = options.graceMs ?? DEFAULT_KILL_GRACE_MS
    const tagged = () => (options.tag ? findTaggedPids(options.tag, { prefix: options.tagPrefix ?? false }) : [])
    const targets = new Set<number>(root > 0 ? [root] : [])
    const started = new Map<number, string | undefined>()
    const add = (pid: number) => {
      if (targets.has(pid) && started.has(pid)) return
      targets.add(pid)
      started.set(pid, startTimeOf(pid))
    }
    for (const pid of targets) started.set(pid, startTimeOf(pid))
    for (const pid of yield* listDescendantPids(root)) add(pid)
    for (const pid of tagged()) add(pid)
    const group = options.group ?? true
    if (group && root > 0) signal(-root, "SIGTERM")
    signalPids(targets, "SIGTERM")
    yield* pollUntil(() => [...targets].every((pid) => !isAlive(pid)), grace)
    // Survivors may have forked while we waited.
    for (const pid of [...targets]) {
      if (!isAlive(pid)) continue
      for (const child of yield* listDescendantPids(pid)) add(child)
    }
    for (const pid of tagged()) add(pid)
    if (group && root > 0) signal(-root, "SIGKILL")
    // A PID whose start time changed now belongs to an unrelated process: leave it alone.
    signalPids([...targets].filter((pid) => isAlive(pid) && startTimeOf(pid) === started.get(pid)), "SIGKILL")
    yield* pollUntil(() => [...targets].every((pid) => !isAlive(pid)), 2_000)
    return [...targets]
  }).pipe(Effect.uninterruptible)
