/**
 * Property: for random spellings of one file or directory — shell escapes, `./`, `..` inside the
 * root, doubled slashes, symlinks (of the file, of a parent directory, chained), trailing slashes
 * on directories, absolute or relative — the scheduler's decision equals the decision for the
 * canonical path, for deny, ask and allow rules. Calls go through the real scheduler and built-in
 * tools: `deny` is `execution_denied`, `ask` reaches the approver (which declines), `allow` reaches
 * the pre-call hook (which blocks, so nothing runs).
 * (`~` is not exercised: it expands to the home directory, outside these temp roots.)
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer, ManagedRuntime } from "effect"
import { Approver } from "../../src/run/approver.js"
import { ToolHooks } from "../../src/run/hooks.js"
import type { PermissionRule } from "../../src/run/policy.js"
import { Scheduler } from "../../src/run/scheduler.js"
import type { Permission } from "../../src/tool/permission.js"
import { makeTempDir, testSession } from "../support/session.js"

const RUNS = { seed: 1515, numRuns: 250 } as const

/** The root every session shares: real files, and links to them inside the root. */
const makeRoot = (): string => {
  const root = makeTempDir("tw-policy-prop-")
  fs.writeFileSync(path.join(root, "secret file.txt"), "top secret\n")
  fs.writeFileSync(path.join(root, "notes (v2).md"), "notes\n")
  fs.writeFileSync(path.join(root, "plain.txt"), "plain\n")
  fs.mkdirSync(path.join(root, "vault"))
  fs.writeFileSync(path.join(root, "vault", "key.txt"), "key\n")
  fs.mkdirSync(path.join(root, "sub"))
  fs.symlinkSync("secret file.txt", path.join(root, "alias.txt"))
  fs.symlinkSync("alias.txt", path.join(root, "chain.txt"))
  fs.symlinkSync("vault", path.join(root, "vlink"))
  fs.symlinkSync("../vault/key.txt", path.join(root, "sub", "keylink"))
  return root
}

interface Target {
  /** A word in the file, for an edit whose confirmation can be computed. */
  readonly word: string
  /** The rule's specifier for it (relative, absolute or a glob), or none for the control. */
  readonly rule: (root: string) => string | undefined
  /** Names of the target relative to some directory prefix. */
  readonly names: ReadonlyArray<string>
  readonly directory: boolean
}

const TARGETS: ReadonlyArray<Target> = [
  { word: "top", rule: () => "secret file.txt", names: ["secret file.txt", "secret\\ file.txt", "alias.txt", "chain.txt"], directory: false },
  { word: "notes", rule: (root) => path.join(root, "notes (v2).md"), names: ["notes (v2).md", "notes\\ \\(v2\\).md", "notes\\ (v2).md"], directory: false },
  { word: "key", rule: () => "vault/*.txt", names: ["vault/key.txt", "vlink/key.txt", "vault//key.txt", "sub/keylink", "vlink/../vault/key.txt"], directory: false },
  { word: "", rule: () => "vault", names: ["vault", "vault/", "vlink", "vlink/", "vlink/.", "sub/../vault", "vault/./"], directory: true },
  { word: "plain", rule: () => undefined, names: ["plain.txt", "./plain.txt", "sub/../plain.txt"], directory: false }
]

const PREFIXES = (root: string): ReadonlyArray<string> => ["", "./", "sub/../", "./sub/./../", "vault/../", "sub//..//", `${root}/`, `${root}/sub/../`]

const FILE_TOOLS = {
  read_file: (p: string) => ({ file_path: p }),
  edit: (p: string, word: string) => ({ file_path: p, old_string: word, new_string: `${word}!` })
} as const
const DIR_TOOLS = {
  list_directory: (p: string) => ({ path: p }),
  glob: (p: string) => ({ pattern: "*.none", path: p }),
  grep_search: (p: string) => ({ pattern: "absent-zzz", path: p })
} as const

/** What reached whom: approvals asked, calls let through to the pre-call hook. */
interface Probe {
  priming: boolean
  asked: number
  allowed: number
}
const DEFAULTS: Record<string, Permission> = { read_file: "allow", edit: "ask", list_directory: "allow", glob: "allow", grep_search: "allow" }

const rulesFor = (decision: Permission, root: string): ReadonlyArray<PermissionRule> =>
  TARGETS.flatMap((target) => {
    const spec = target.rule(root)
    if (spec === undefined) return []
    const tools = target.directory ? Object.keys(DIR_TOOLS) : Object.keys(FILE_TOOLS)
    return tools.map((tool) => ({ decision, pattern: `${tool}(${spec})` }))
  })

describe("policy property: every spelling of a path gets the canonical path's decision", () => {
  it("for deny, ask and allow rules over files, directories, escapes, .. and symlinks (seeded)", async () => {
    const root = makeRoot()
    // While priming, the approver approves and the hook lets calls run (the reads an edit's
    // confirmation needs); afterwards the approver declines and the hook blocks, so nothing runs.
    const probe: Probe = { priming: true, asked: 0, allowed: 0 }
    const approver = Approver.layerCallback(() =>
      Effect.sync(() => {
        probe.asked++
        return probe.priming ? { _tag: "proceed_once" as const } : { _tag: "cancel" as const, reason: "property test declines" }
      })
    )
    const hooks = ToolHooks.layer({
      beforeCall: () =>
        Effect.sync(() => {
          probe.allowed++
          return probe.priming ? { _tag: "Continue" as const } : { _tag: "Block" as const, reason: "property test: decided allow" }
        })
    })
    const runtimes = Object.fromEntries((["deny", "ask", "allow"] as const).map((decision) => {
      const s = testSession([], { root, builtins: true, mode: "default", rules: rulesFor(decision, root), hooks, approver })
      return [decision, ManagedRuntime.make(s.layer as Layer.Layer<Scheduler>)]
    })) as Record<Permission, ManagedRuntime.ManagedRuntime<Scheduler, never>>
    const decisionOf = (runtime: ManagedRuntime.ManagedRuntime<Scheduler, never>, name: string, args: unknown) =>
      runtime.runPromise(Effect.gen(function*() {
        const before = { asked: probe.asked, allowed: probe.allowed }
        const result = yield* (yield* Scheduler).runOne({ callId: "p", name, args })
        if (probe.asked > before.asked) return "ask"
        if (probe.allowed > before.allowed) return "allow"
        if (result._tag === "Failure" && result.code === "execution_denied") return "deny"
        return `unexpected ${result._tag}: ${JSON.stringify(result)}`
      }))
    // the reads that let an edit compute its confirmation (a denied read simply does not happen)
    for (const runtime of Object.values(runtimes)) {
      for (const target of TARGETS.filter((t) => !t.directory)) await decisionOf(runtime, "read_file", { file_path: target.names[0]! })
    }
    probe.priming = false
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom<Permission>("deny", "ask", "allow"),
          fc.nat(TARGETS.length - 1),
          fc.nat(),
          fc.nat(),
          fc.nat(),
          async (decision, targetIndex, namePick, prefixPick, toolPick) => {
            const target = TARGETS[targetIndex]!
            const tools = target.directory ? DIR_TOOLS : FILE_TOOLS
            const toolNames = Object.keys(tools) as Array<keyof typeof tools>
            const tool = toolNames[toolPick % toolNames.length]!
            const argsOf = (p: string) => (tools as Record<string, (p: string, word: string) => unknown>)[tool]!(p, target.word)
            const prefixes = PREFIXES(root)
            const spelling = prefixes[prefixPick % prefixes.length]! + target.names[namePick % target.names.length]!
            const canonical = target.names[0]!
            const runtime = runtimes[decision]
            const expected = target.rule(root) === undefined ? DEFAULTS[tool]! : decision
            assert.strictEqual(await decisionOf(runtime, tool, argsOf(canonical)), expected, `${tool} ${canonical}`)
            assert.strictEqual(await decisionOf(runtime, tool, argsOf(spelling)), expected, `${tool} ${JSON.stringify(spelling)}`)
          }
        ),
        RUNS
      )
      // nothing was changed by the calls that ran
      assert.strictEqual(fs.readFileSync(path.join(root, "secret file.txt"), "utf8"), "top secret\n")
    } finally {
      await Promise.all(Object.values(runtimes).map((runtime) => runtime.dispose()))
      fs.rmSync(root, { recursive: true, force: true })
    }
  }, 120_000)
})
