/**
 * Keeping ripgrep off files over the size cap without a `stat` of every file it walks.
 *
 * `rg --max-filesize` stats each file before opening it: 100,000 `statx` calls on a
 * 100,000-file tree, about 15% of ripgrep's CPU on a full scan. The flag guards against huge
 * *text* files only — ripgrep's binary detection already leaves a sparse or NUL-filled file at its
 * first NUL byte, and the matches of a file over the cap are dropped on our side anyway
 * (`rgJson.ts`) — but a huge text file is read to its end, and a 200 MB one-line file that matches
 * makes ripgrep print 2 GB of JSON (84 s).
 *
 * On Linux the files a process holds open are listed in `/proc/<pid>/fd`, and a `stat` through
 * one of those links gives the open file's size. A search run without `--max-filesize` is watched:
 * every {@link WATCH_INTERVAL_MS} the regular files ripgrep (and any child of its main thread,
 * e.g. ripgrep under a wrapper that does not `exec` it) has open are stat'ed, and when one is over
 * the cap the run is stopped and done again with `--max-filesize` (`ripgrep.ts`), which also
 * remembers that the root holds such a file. A file over the cap that ripgrep reads between two
 * polls costs less than a poll interval and its matches are dropped; one that would hold ripgrep
 * for longer is seen. A poll is a handful of system calls (see {@link WATCH_INTERVAL_MS}).
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { MAX_SEARCH_FILE_BYTES } from "../constants.js"

/**
 * How often a watched run's open files are looked at (ms): a huge file is read for at most this
 * long before the run is stopped. A look is a `readdir` and a few `stat`s of `/proc`, which cost
 * more while ripgrep opens and closes files: measured up to ~1 ms of CPU on a machine at load 20
 * (60 ms per 100,000-file scan at 100 ms, against the 300 ms of ripgrep CPU the flag costs there).
 * @category constants
 */
export const WATCH_INTERVAL_MS = 200

/** True when this system lists a process's open files in `/proc/<pid>/fd` (Linux). @category probes */
export const canWatchOpenFiles = (): boolean => {
  if (process.platform !== "linux") return false
  try {
    return fs.readdirSync(`/proc/${process.pid}/fd`).length > 0
  } catch {
    return false
  }
}

/** The children of a process's main thread (none when the kernel does not list them). */
const childrenOf = (pid: number): ReadonlyArray<number> => {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "latin1").split(" ").filter((s) => s !== "").map(Number)
  } catch {
    return []
  }
}

/** The first regular file over the cap that `pid` holds open, or undefined. */
const bigOpenFile = (pid: number): string | undefined => {
  const dir = `/proc/${pid}/fd`
  let fds: ReadonlyArray<string>
  try {
    fds = fs.readdirSync(dir)
  } catch (error) {
    // ENOENT: the process is gone. Anything else (EACCES under a hardened /proc): the watch is
    // blind, which counts as a file over the cap — the run is done again with --max-filesize.
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : dir
  }
  for (const fd of fds) {
    // 0–2 are the pipes and /dev/null the process was given (a stat of a pipe costs as much as a file's)
    if (fd === "0" || fd === "1" || fd === "2") continue
    try {
      const stats = fs.statSync(path.join(dir, fd), { throwIfNoEntry: false })
      if (stats?.isFile() === true && stats.size > MAX_SEARCH_FILE_BYTES) return fs.readlinkSync(path.join(dir, fd))
    } catch {
      // closed between the listing and the stat
    }
  }
  return undefined
}

/**
 * The path of a regular file over `MAX_SEARCH_FILE_BYTES` that `pid` or a child of its main
 * thread (two levels down) holds open, or undefined when none does (or the process has ended);
 * the `/proc/<pid>/fd` path itself when it cannot be read.
 * @category probes
 */
export const openFileOverCap = (pid: number, depth = 2): string | undefined => {
  const own = bigOpenFile(pid)
  if (own !== undefined || depth === 0) return own
  for (const child of childrenOf(pid)) {
    const found = openFileOverCap(child, depth - 1)
    if (found !== undefined) return found
  }
  return undefined
}
