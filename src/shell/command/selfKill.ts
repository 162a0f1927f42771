/**
 * The self-kill guard: commands that would terminate every `node` (or toolwright) process —
 * this server among them — are refused before they run (`pkill node`, `killall -9 node`,
 * `taskkill /IM node.exe`, `kill $(pgrep node)`, `pgrep node | xargs kill`, also behind `sudo`,
 * `env` and `bash -c`). Killing a specific PID, or a pattern naming one script, is fine.
 *
 * @since 0.1.0
 */
import { expandLine, type ParsedLine, substitutionLine } from "./parsedLine.js"
import { type Invocation, programName } from "./wrappers.js"
import type { Word } from "./syntax.js"

/** Process names whose blanket kill takes this process down. @category constants */
export const SELF_PROCESS_NAMES: ReadonlySet<string> = new Set(["node", "nodejs", "toolwright", "qwen", "qwen-code"])

/** The model-facing refusal. @category constants */
export const SELF_KILL_MESSAGE =
  "Blocked: this command may terminate the running toolwright process because it targets all node/toolwright processes. " +
  "Use task_stop for managed background shells, or kill a specific PID instead."

/** True when a process-name pattern matches every node/toolwright process (not one script). @category predicates */
export const isSelfPattern = (pattern: string): boolean => {
  if (/\s/.test(pattern.trim())) return false
  const bare = pattern.trim().replace(/^\^/, "").replace(/[*$]+$/, "")
  return SELF_PROCESS_NAMES.has(programName(bare).toLowerCase())
}

const PGREP_VALUE = new Set(["-F", "--pidfile", "-G", "--group", "-P", "--parent", "-s", "--session", "-t", "--terminal", "-u", "--euid", "-U", "--uid", "-g", "--pgroup", "--signal", "--ns", "--nslist", "-d", "--delimiter"])
const KILLALL_VALUE = new Set(["-s", "--signal", "-u", "--user", "-o", "--older-than", "-y", "--younger-than", "-n", "--ns", "-Z", "--context"])
const VALUE_LETTERS: Record<string, ReadonlySet<string>> = { pgrep: new Set("FGPstuUgd"), killall: new Set("suoynZ") }

/** Positional arguments after options (combined short flags like `-9f` understood). */
const positionals = (args: ReadonlyArray<Word>, withValue: ReadonlySet<string>, letters: ReadonlySet<string>): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!.text
    if (t === "--") {
      out.push(...args.slice(i + 1).map((w) => w.text))
      break
    }
    if (t.startsWith("--")) {
      if (withValue.has(t)) i++
      continue
    }
    if (t.startsWith("-") && t.length > 1) {
      if (withValue.has(t)) i++
      else if (/^-[A-Za-z]+$/.test(t) && letters.has(t[t.length - 1]!) && !/^-[0-9]/.test(t)) i++
      continue
    }
    out.push(t)
  }
  return out
}

const targetsSelf = (inv: Invocation): boolean => {
  const name = programName(inv.argv[0]!.text).toLowerCase()
  const args = inv.argv.slice(1)
  switch (name) {
    case "pkill":
    case "pgrep":
      return positionals(args, PGREP_VALUE, VALUE_LETTERS.pgrep!).some(isSelfPattern)
    case "killall":
      return positionals(args, KILLALL_VALUE, VALUE_LETTERS.killall!).some(isSelfPattern)
    case "pidof":
      return args.some((w) => !w.text.startsWith("-") && isSelfPattern(w.text))
    case "taskkill": {
      const im = args.findIndex((w) => /^\/im$/i.test(w.text))
      return im >= 0 && args[im + 1] !== undefined && isSelfPattern(args[im + 1]!.text)
    }
    default:
      return false
  }
}

const isKiller = (inv: Invocation) => ["pkill", "killall", "taskkill"].includes(programName(inv.argv[0]!.text).toLowerCase())
const isLister = (inv: Invocation) => ["pgrep", "pidof"].includes(programName(inv.argv[0]!.text).toLowerCase())
const isKill = (inv: Invocation) => programName(inv.argv[0]!.text).toLowerCase() === "kill"

/**
 * True when the line would terminate all node/toolwright processes.
 *
 * @category predicates
 */
export const lineKillsSelf = (parsed: ParsedLine, depth = 0): boolean => {
  const expanded = expandLine(parsed)
  const { invocations } = expanded
  if (invocations.some((inv) => isKiller(inv) && targetsSelf(inv))) return true
  // kill $(pgrep node), kill `pidof node`
  for (const inv of invocations.filter(isKill)) {
    for (const word of inv.argv.slice(1)) {
      for (const sub of word.substitutions) {
        const inner = depth < 3 ? substitutionLine(expanded.lines, sub) : undefined
        if (inner !== undefined && expandLine(inner).invocations.some((i) => isLister(i) && targetsSelf(i))) return true
      }
    }
  }
  // pgrep node | xargs kill
  const lists = invocations.some((inv) => isLister(inv) && targetsSelf(inv))
  if (lists && invocations.some((inv) => isKill(inv) && inv.wrappers.includes("xargs"))) return true
  // kill inside a substitution of something else: echo $(pkill node)
  for (const line of expanded.lines) {
    for (const sub of line.substitutions) if (depth < 3 && lineKillsSelf(sub, depth + 1)) return true
  }
  return false
}
