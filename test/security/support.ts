/**
 * Shared harness of the abuse suite (test/security/abuse-*.test.ts): a `toolwright serve` from the
 * worktree's build over a temp root, with a temp "outside" directory full of canaries beside it and a
 * fake HOME inside that (so `~` spellings can never reach a real home), a call wrapper that classifies
 * every answer (typed error, untyped error, protocol failure, hang), a snapshot of the outside tree
 * to prove nothing there changed, and a small counter that writes the figures to a JSON file.
 */
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"
import { cliPath, repoRoot, tempDir } from "../support/serve.js"

/** A token planted in every canary file: seeing it in a result means something outside was read. */
export const CANARY = "CANARY-7f3a9c-OUTSIDE-THE-WORKSPACE"

/** Every wire code documented in docs/errors.md (the first column of its tables). */
export const documentedCodes: ReadonlySet<string> = new Set(
  [...fs.readFileSync(path.join(repoRoot, "docs", "errors.md"), "utf8").matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!)
)

/** Codes that mean "no classification": a defect reached the door, or nothing more specific was said. */
export const UNTYPED_CODES: ReadonlySet<string> = new Set(["unhandled_exception", "unknown"])

/** One classified answer of a tool call. */
export interface Answer {
  readonly name: string
  readonly args: unknown
  /** `ok` a result; `typed` a documented error code; `untyped` an error without one (or a defect);
   * `protocol` the request itself failed (transport closed, MCP error); `hang` no answer in time. */
  readonly kind: "ok" | "typed" | "untyped" | "protocol" | "hang"
  readonly code: string | undefined
  readonly text: string
  readonly ms: number
}

/** A running server over a temp root, with an outside directory of canaries next to it. */
export interface Arena {
  readonly root: string
  readonly outside: string
  readonly home: string
  readonly state: string
  readonly client: Client
  /** Whether the server process is still alive. */
  readonly alive: () => boolean
  /** Calls a tool and classifies the answer; never fails. `timeoutMs` bounds the wait (a hang). */
  readonly call: (name: string, args: unknown, timeoutMs?: number) => Effect.Effect<Answer>
}

const textOf = (content: unknown): string =>
  Array.isArray(content)
    ? content.map((part: { type?: string; text?: string }) => (part.type === "text" ? part.text ?? "" : `[${part.type}]`)).join("\n")
    : ""

/** The canary files of the outside tree (names that never occur inside a root). */
export const OUTSIDE_FILES = ["secret.txt", "secret file.txt", "dir/inner.txt", "home/.ssh/id_rsa", "home/.bashrc"] as const

/** Writes the outside tree: canary files, a directory, a fake home with credentials. */
export const plantOutside = (outside: string): void => {
  const put = (rel: string) => {
    const file = path.join(outside, rel)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, `${CANARY} ${rel}\nneedle line\n`)
  }
  for (const rel of OUTSIDE_FILES) put(rel)
  fs.writeFileSync(
    path.join(outside, "notebook.ipynb"),
    JSON.stringify({ cells: [{ cell_type: "code", id: "c1", source: [CANARY], metadata: {}, outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 })
  )
}

/** Every entry under `dir` with its type, mode, size, mtime and a hash of its bytes (links not followed). */
export const snapshot = (dir: string): Map<string, string> => {
  const out = new Map<string, string>()
  const walk = (current: string) => {
    for (const name of fs.readdirSync(current)) {
      const file = path.join(current, name)
      const st = fs.lstatSync(file)
      const rel = path.relative(dir, file)
      if (st.isDirectory()) {
        out.set(rel, `dir ${st.mode} ${st.mtimeMs}`)
        walk(file)
      } else if (st.isSymbolicLink()) {
        out.set(rel, `link ${fs.readlinkSync(file)}`)
      } else {
        const hash = crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex")
        out.set(rel, `file ${st.mode} ${st.size} ${st.mtimeMs} ${hash}`)
      }
    }
  }
  walk(dir)
  return out
}

/** The entries that differ between two snapshots (added, removed or changed), sorted. */
export const changedEntries = (before: Map<string, string>, after: Map<string, string>): Array<string> => {
  const keys = new Set([...before.keys(), ...after.keys()])
  return [...keys].filter((key) => before.get(key) !== after.get(key)).sort()
}

/** The outside directory's parent-relative name from the root: `../<outside>` works as a `..` escape. */
export const relativeOutside = (arena: Pick<Arena, "root" | "outside">): string => path.relative(arena.root, arena.outside)

/**
 * Starts `toolwright serve --root ROOT` (default approval: yolo, so edits and commands run without
 * asking; only the boundary stands in the way) with HOME pointed at the outside tree's fake home.
 */
export const arena = (extraArgs: ReadonlyArray<string> = []) =>
  Effect.gen(function*() {
    const root = yield* tempDir("tw-abuse-root-")
    const outside = yield* tempDir("tw-abuse-outside-")
    const state = yield* tempDir("tw-abuse-state-")
    plantOutside(outside)
    const home = path.join(outside, "home")
    let alive = true
    const client = yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const client = new Client({ name: "toolwright-abuse", version: "0.0.0" }, { capabilities: {} })
        const env: Record<string, string> = {}
        for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [cliPath, "serve", "--root", root, "--state-dir", state, ...extraArgs],
          stderr: "pipe",
          cwd: root,
          // The canary in the environment too: a read of /proc/self/environ shows it.
          env: { ...env, HOME: home, NO_COLOR: "1", TOOLWRIGHT_STATE_DIR: state, TW_ABUSE_CANARY: CANARY }
        })
        transport.onclose = () => {
          alive = false
        }
        await client.connect(transport)
        // The client wraps onclose; keep ours too.
        const previous = transport.onclose
        transport.onclose = () => {
          alive = false
          previous?.()
        }
        return client
      }),
      (client) => Effect.promise(() => client.close())
    )
    const call = (name: string, args: unknown, timeoutMs = 10_000): Effect.Effect<Answer> =>
      Effect.promise(async (): Promise<Answer> => {
        const started = performance.now()
        try {
          const result = await client.callTool({ name, arguments: args as Record<string, unknown> }, undefined, { timeout: timeoutMs })
          const ms = performance.now() - started
          const text = textOf(result.content)
          if (result.isError !== true) return { name, args, kind: "ok", code: undefined, text, ms }
          if (result._meta?.["toolwright/cancelled"] === true) return { name, args, kind: "typed", code: "cancelled", text, ms }
          const code = result._meta?.["toolwright/errorType"]
          const typed = typeof code === "string" && documentedCodes.has(code) && !UNTYPED_CODES.has(code)
          return { name, args, kind: typed ? "typed" : "untyped", code: typeof code === "string" ? code : undefined, text, ms }
        } catch (error) {
          const ms = performance.now() - started
          const text = error instanceof Error ? error.message : String(error)
          const hang = /timed out|timeout/i.test(text)
          return { name, args, kind: hang ? "hang" : "protocol", code: undefined, text, ms }
        }
      })
    const result: Arena = { root, outside, home, state, client, alive: () => alive, call }
    return result
  })

/** Counters of one category of the suite, written to the report file by {@link writeReport}. */
export interface Tally {
  attempts: number
  ok: number
  typed: number
  untyped: number
  protocol: number
  hangs: number
  /** Outside files read (a canary in a result) or changed (the outside snapshot moved). */
  escapes: number
  /** The server process died. */
  crashes: number
  /** The slowest answer, ms. */
  maxMs: number
  /** Wall time of the category, ms (when measured). */
  wallMs: number
  codes: Record<string, number>
}

export const emptyTally = (): Tally => ({
  attempts: 0,
  ok: 0,
  typed: 0,
  untyped: 0,
  protocol: 0,
  hangs: 0,
  escapes: 0,
  crashes: 0,
  maxMs: 0,
  wallMs: 0,
  codes: {}
})

/** Adds one answer to a tally. */
export const count = (tally: Tally, answer: Answer): void => {
  tally.attempts++
  if (answer.kind === "ok") tally.ok++
  else if (answer.kind === "typed") tally.typed++
  else if (answer.kind === "untyped") tally.untyped++
  else if (answer.kind === "protocol") tally.protocol++
  else tally.hangs++
  if (answer.text.includes(CANARY)) tally.escapes++
  tally.maxMs = Math.max(tally.maxMs, Math.round(answer.ms))
  const key = answer.code ?? answer.kind
  tally.codes[key] = (tally.codes[key] ?? 0) + 1
}

/** Where the figures go: one JSON per test file, merged by the lead into docs/security.md. */
export const reportDir = path.join(os.tmpdir(), "toolwright-abuse-report")

/**
 * Writes `{ category: tally }` for one test file; with `TOOLWRIGHT_TEST_FIGURES=1` also prints a
 * one-line summary per category (a passing `npm test` prints nothing; the JSON is always written).
 */
export const writeReport = (file: string, tallies: Record<string, Tally>): string => {
  fs.mkdirSync(reportDir, { recursive: true })
  const target = path.join(reportDir, `${file}.json`)
  fs.writeFileSync(target, JSON.stringify({ file, at: new Date().toISOString(), tallies }, null, 2) + "\n")
  if (process.env["TOOLWRIGHT_TEST_FIGURES"] !== "1") return target
  for (const [category, t] of Object.entries(tallies)) {
    // The suite's figures, for docs/security.md.
    process.stdout.write(
      `[abuse] ${file}/${category}: attempts=${t.attempts} ok=${t.ok} typed=${t.typed} untyped=${t.untyped} ` +
        `protocol=${t.protocol} hangs=${t.hangs} escapes=${t.escapes} crashes=${t.crashes} maxMs=${t.maxMs}` +
        (t.wallMs > 0 ? ` wallMs=${t.wallMs}` : "") + "\n"
    )
  }
  return target
}

/** Short description of the answers that broke a rule, for assertion messages. */
export const describeAnswers = (answers: ReadonlyArray<Answer>, max = 8): string =>
  answers.slice(0, max).map((a) =>
    `${a.name} ${JSON.stringify(a.args)?.slice(0, 200)} → ${a.kind}${a.code ? ` [${a.code}]` : ""}: ${a.text.slice(0, 300)}`
  ).join("\n")
