/**
 * Telling the model that the sandbox, not the command, refused something: a failed command's
 * output is scanned for the errors confinement causes (a read-only file system or a permission
 * refusal on a path outside the writable directories, a hidden credential path, an unreachable
 * network), so the model can ask for an unsandboxed run instead of retrying blindly.
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import { deniedPaths, type SandboxScope, type SandboxSettings, writableDirs } from "./sandbox.js"

const PATH_ERROR = /(?:'([^'\n]+)'|"([^"\n]+)"|(\/[^\s:'"]+))[^\n]*?:\s*(Read-only file system|Permission denied|Operation not permitted)/g
const BARE_PATH_ERROR = /(?:^|[\s:])([^\s:'"]+):\s*(Read-only file system|Permission denied)/gm
/** A missing file is the sandbox's doing only inside a hidden credential path. */
const MISSING = /(?:'([^'\n]+)'|"([^"\n]+)"|(?:^|[\s:])(\/?[^\s:'"]+))\s*:\s*No such file or directory/gm
const BARE_EROFS = /Read-only file system|EROFS/
const NETWORK_ERROR = /Network is unreachable|ENETUNREACH|Could not resolve host|Temporary failure in name resolution|Name or service not known|getaddrinfo E(?:AI_AGAIN|NOTFOUND)|No address associated with hostname/

const inside = (dir: string, p: string) => p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep)

/**
 * One sentence per thing the sandbox blocked, as seen in `output` (empty when nothing points at it).
 *
 * @category diagnostics
 */
export const sandboxBlocks = (output: string, settings: SandboxSettings, scope: SandboxScope): Array<string> => {
  if (settings.mode === "off") return []
  const notes: Array<string> = []
  const seen = new Set<string>()
  const writable = writableDirs(settings, scope)
  const hidden = deniedPaths(settings).map((d) => d.path)
  const found = [...output.matchAll(PATH_ERROR)].map((m) => m[1] ?? m[2] ?? m[3])
  found.push(...[...output.matchAll(BARE_PATH_ERROR)].map((m) => m[1]))
  const missing = new Set([...output.matchAll(MISSING)].map((m) => m[1] ?? m[2] ?? m[3]).filter((r) => r !== undefined).map((r) => path.resolve(scope.cwd, r)))
  for (const p of missing) {
    if (hidden.some((h) => inside(h, p)) && !seen.has(p)) {
      seen.add(p)
      notes.push(`blocked by the sandbox: ${p} is a credential path, hidden from commands in ${settings.mode} mode`)
    }
  }
  for (const raw of found) {
    if (raw === undefined) continue
    const p = path.resolve(scope.cwd, raw)
    if (seen.has(p)) continue
    if (hidden.some((h) => inside(h, p))) {
      seen.add(p)
      notes.push(`blocked by the sandbox: ${p} is a credential path, hidden from commands in ${settings.mode} mode`)
    } else if (!writable.some((w) => inside(w, p))) {
      seen.add(p)
      notes.push(`blocked by the sandbox: ${p} is read-only in ${settings.mode} mode`)
    }
  }
  if (notes.length === 0 && BARE_EROFS.test(output)) {
    notes.push(`blocked by the sandbox: the command wrote outside the writable directories (read-only in ${settings.mode} mode)`)
  }
  if (!settings.network && NETWORK_ERROR.test(output)) notes.push("blocked by the sandbox: the network is off (only the sandbox's own loopback is reachable)")
  return notes
}

/**
 * The paragraph added to a failed command's result when the sandbox blocked it.
 *
 * @category diagnostics
 */
export const sandboxBlockedText = (notes: ReadonlyArray<string>): string =>
  notes.length === 0 ? "" : `${notes.join("\n")}\nThis is the command sandbox, not a bug in the command: do not retry it as it is. If the command really needs this, ask the user to approve one run without the sandbox (run_shell_command with "sandbox": false), or to add the directory with --sandbox-writable / allow the network with --sandbox-network on.`
