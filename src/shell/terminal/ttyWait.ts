/**
 * Is a command waiting for someone to type? Linux only, read from `/proc`, for the processes of one
 * run (its process tree; see {@link runWaitsOnTerminal}):
 *
 * - `/proc/<pid>/syscall` names the system call the process is blocked in, and its arguments. A
 *   process blocked in `read`/`readv` on a file descriptor whose `/proc/<pid>/fd/<n>` link is a
 *   terminal (`/dev/pts/*`, `/dev/tty*`, `/dev/console`) waits for input: `read -p`, `input()`,
 *   a password prompt, a pager.
 * - A process blocked in `select`/`pselect6`/`poll`/`ppoll` whose stdin is a terminal counts too
 *   (line editors and REPLs wait there before they read).
 *
 * The state file (`/proc/<pid>/stat`) and `wchan` are not enough on their own: a sleeping process
 * and one waiting on the terminal both show `S`, and `wchan` is a generic `wait_woken` on current
 * kernels. Where `/proc/<pid>/syscall` cannot be read (another architecture than x86-64 or arm64,
 * a kernel without it, no permission), the answer is "no", and only the wall-time limit moves a
 * command to the background.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import { findTaggedPids, treePids } from "../../process/index.js"

/** System call numbers per architecture: reads, and waits on several descriptors. */
const SYSCALLS: Readonly<Record<string, { readonly reads: ReadonlySet<number>; readonly waits: ReadonlySet<number> }>> = {
  x64: { reads: new Set([0, 19]), waits: new Set([7, 23, 270, 271]) },
  arm64: { reads: new Set([63, 65]), waits: new Set([72, 73]) }
}

const TERMINAL = /^\/dev\/(pts\/\d+|tty\w*|console)$/

const isTerminal = (pid: number, fd: number): boolean => {
  try {
    return TERMINAL.test(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))
  } catch {
    return false
  }
}

/** True when the process is blocked reading its terminal (see the module comment). @category predicates */
export const isWaitingOnTerminal = (pid: number, arch: string = process.arch): boolean => {
  const calls = SYSCALLS[arch]
  if (process.platform !== "linux" || calls === undefined) return false
  let fields: Array<string>
  try {
    fields = fs.readFileSync(`/proc/${pid}/syscall`, "latin1").trim().split(" ")
  } catch {
    return false
  }
  const nr = Number(fields[0])
  if (!Number.isInteger(nr)) return false // "running", or "-1 …" (not in a system call)
  if (calls.reads.has(nr)) {
    const fd = Number.parseInt(fields[1] ?? "", 16)
    return Number.isInteger(fd) && isTerminal(pid, fd)
  }
  return calls.waits.has(nr) && isTerminal(pid, 0)
}

/**
 * True when any process of the run waits on its terminal: the run's process tree (its root `pid`
 * and descendants; a sandboxed command's processes are descendants of the sandbox's), read from
 * that tree's own `/proc` files. Only where the kernel lacks them does it fall back to scanning
 * every process for the run's tag: that scan costs the machine's process count, paid by each
 * running command at every poll, and with a thousand commands at once it stalled the event loop
 * for minutes (issue 18).
 *
 * @category predicates
 */
export const runWaitsOnTerminal = (pid: number, tag: string): boolean =>
  (treePids(pid) ?? findTaggedPids(tag)).some((p) => isWaitingOnTerminal(p))
