/**
 * A fuzzer over every built-in tool through the serve door: argument sets drawn from fast-check
 * arbitraries derived from each tool's JSON Schema (as `tools/list` gives it), mixed with hostile
 * values (huge strings, negative and huge numbers, wrong types, deep objects, odd unicode, unknown
 * and missing keys). Every answer must be a result or a documented wire code (never
 * `unhandled_exception`), no request may be lost or hang, nothing outside the root changes, and the
 * server still answers a `list_directory` after each batch.
 *
 * Each tool runs against a server of its own (two at a time), so a call that kills or wedges a
 * server stops only that tool's run. `TW_ABUSE_FUZZ_RUNS` sets the argument sets per tool (default
 * 2000), `TW_ABUSE_FUZZ_SEED` the seed, `TW_ABUSE_PROGRESS=FILE` appends a line per batch (its time
 * and its slow calls) to FILE.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import * as fc from "fast-check"
import {
  type Answer,
  type Arena,
  arena,
  CANARY,
  changedEntries,
  count,
  describeAnswers,
  emptyTally,
  relativeOutside,
  reportDir,
  snapshot,
  type Tally,
  writeReport
} from "./support.js"

const RUNS = Number(process.env.TW_ABUSE_FUZZ_RUNS ?? 2000)
const SEED = Number(process.env.TW_ABUSE_FUZZ_SEED ?? 20261203)
const BATCH = 25

interface JsonSchema {
  readonly type?: string
  readonly enum?: ReadonlyArray<unknown>
  readonly properties?: Record<string, JsonSchema>
  readonly required?: ReadonlyArray<string>
  readonly items?: JsonSchema
  readonly minLength?: number
  readonly maxLength?: number
  readonly minimum?: number
  readonly maximum?: number
  readonly minItems?: number
  readonly maxItems?: number
}

/** Nested `{ a: { a: … } }` / `[[[…]]]` of the given depth. */
const deepObject = (depth: number): unknown => {
  let value: unknown = "bottom"
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}
const deepArray = (depth: number): unknown => {
  let value: unknown = "bottom"
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

/** Strings no tool should choke on: control characters, lone surrogates, bidi overrides, size. */
const oddStrings = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\uD800",
  "\uDFFF\uD800",
  "\u202Eevil\u202C",
  "\uFEFF",
  "\u2028\u2029",
  "e\u0301".repeat(500),
  "👨‍👩‍👧‍👦".repeat(100),
  "\r\n\r\n",
  "\t".repeat(1000),
  "%s%n%x",
  "{{constructor.constructor('return process')()}}",
  "__proto__",
  "${HOME}",
  "*".repeat(300),
  "(".repeat(200),
  "\\".repeat(301),
  "x".repeat(65_537),
  "ab\n".repeat(40_000),
  "🙂".repeat(20_000)
]

/** Any JSON value a hostile caller might send where something else was expected. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    -0,
    -1,
    1.5,
    -1e308,
    1e308,
    2 ** 53 + 2,
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    Number.MIN_VALUE,
    [],
    {},
    [null],
    { __proto__: { polluted: true } },
    JSON.parse("{\"__proto__\": {\"polluted\": true}}"),
    { constructor: { prototype: { polluted: true } } },
    deepObject(64),
    deepObject(2_000),
    deepArray(2_000),
    Array.from({ length: 10_000 }, (_, i) => i),
    Array.from({ length: 2_000 }, () => "x".repeat(50))
  ),
  fc.constantFrom(...oddStrings),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.double(),
  fc.integer(),
  fc.jsonValue({ maxDepth: 4 })
)

/** Spellings for a path field: inside names, fixtures, outside spellings, odd unicode. Never a system path. */
const pathValue = (a: Arena): fc.Arbitrary<string> => {
  const up = relativeOutside(a)
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(".", "seed.txt", "seed.ipynb", "fz", `${a.root}/seed.txt`) },
    fc.constantFrom(
      "fz/",
      "fz/new.txt",
      "missing/deeper/file.txt",
      `${up}/secret.txt`,
      `${up}/dir`,
      `${a.outside}/secret.txt`,
      `${a.outside}/new.txt`,
      `./${up}/home/.ssh/id_rsa`,
      `sub/../${up}/secret.txt`,
      `/proc/self/cwd/../${path.basename(a.outside)}/secret.txt`,
      `${a.root}/fz/abs.txt`,
      "~/secret.txt",
      "seed.txt\u0000",
      "fz\\ dir/x.txt",
      `${"d/".repeat(600)}x.txt`,
      "x".repeat(300)
    ),
    fc.stringMatching(/^fz\/[a-zA-Z0-9_. -]{1,40}$/),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }).map((s) => `fz/${s}`)
  )
}

/** A field that runs something: only harmless commands, never random text. */
const commandValue = fc.constantFrom(
  "true",
  "echo fuzz",
  "printf '%s' fuzz",
  "exit 3",
  "echo err >&2; false",
  "ls",
  "pwd",
  "seq 1 2000",
  "sleep 0.05",
  "sleep 3 # intentional-sleep: fuzz",
  "sed -i 's/seed/SEED/' seed.txt"
)

/** Values that pass the schema for fields whose documented checks go beyond it. */
const fieldValue = (a: Arena, key: string | undefined): fc.Arbitrary<unknown> | undefined => {
  switch (key) {
    case "command":
      return commandValue
    case "file_path":
    case "path":
      return pathValue(a)
    case "notebook_path":
      return fc.oneof({ weight: 2, arbitrary: fc.constantFrom("seed.ipynb", "fz/new.ipynb", `${a.root}/seed.ipynb`) }, pathValue(a))
    case "directory":
      return fc.oneof(fc.constantFrom(a.root, `${a.root}/fz`, `${a.root}/missing`, a.outside, `${a.root}/..`), pathValue(a))
    case "old_string":
      return fc.oneof(fc.constantFrom("seed line", "needle line", "", "seed", "line\n", "x = 1"), fc.string({ maxLength: 20 }))
    case "cell_id":
      return fc.oneof(fc.constantFrom("c1", "cell-0", "cell-1", "cell-99", "cell--1"), fc.string({ maxLength: 8 }))
    case "pages":
      return fc.constantFrom("1", "1-2", "2-1", "0", "1-100", "x")
    case "timeout":
      return fc.oneof(fc.integer({ min: 1, max: 5_000 }), fc.constantFrom(600_000, 600_001, 0.5))
    case "task_id": // a background task's (task_stop, send_message) or a board task's (task_update)
      return fc.oneof(fc.constantFrom("bg_00000000", "bg_"), fc.integer({ min: 0, max: 30 }).map(String), fc.string({ maxLength: 12 }))
    case "blocked_by":
      return fc.oneof(fc.integer({ min: 0, max: 30 }).map(String), fc.string({ maxLength: 6 }))
    default:
      return undefined
  }
}

/** A value of `schema` that mostly passes it: the fuzzer's way into the tools' own code. */
const fromSchema = (a: Arena, schema: JsonSchema, key: string | undefined): fc.Arbitrary<unknown> => {
  const special = fieldValue(a, key)
  if (special) return special
  if (schema.enum) return fc.constantFrom(...schema.enum)
  switch (schema.type) {
    case "string": {
      const minLength = Math.max(schema.minLength ?? 0, 1)
      const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 60, 60))
      return fc.oneof(
        { weight: 6, arbitrary: fc.string({ minLength, maxLength }).filter((s) => s.trim() !== "") },
        { weight: 2, arbitrary: fc.string({ unit: "grapheme", minLength, maxLength: 40 }) },
        { weight: 1, arbitrary: fc.constantFrom(...oddStrings) },
        { weight: 1, arbitrary: fc.stringMatching(/^[0-9]{1,3}$|^bg_[0-9a-f]{8}$|^cell-[0-9]$|^c1$/) }
      )
    }
    case "integer":
      return fc.integer({ min: Math.max(schema.minimum ?? 0, 0), max: Math.min(schema.maximum ?? 50, 50) })
    case "number":
      return fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.double({ min: 0, max: 2_000, noNaN: true }))
    case "boolean":
      return fc.boolean()
    case "array":
      return fc.array(fromSchema(a, schema.items ?? {}, undefined), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 5, 5)
      })
    case "object": {
      const properties = schema.properties
      if (!properties) return fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 })
      const required = new Set(schema.required ?? [])
      // Optional keys appear one time in three: a set with every optional key is rarely valid.
      const fields = Object.entries(properties).map(([name, sub]) =>
        required.has(name)
          ? fromSchema(a, sub, name).map((value) => [name, value] as const)
          : fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fromSchema(a, sub, name) })
            .map((value) => [name, value] as const)
      )
      return fc.tuple(...fields).map((entries) =>
        Object.fromEntries(entries.filter(([name, value]) => value !== undefined || required.has(name)))
      )
    }
    default:
      return fc.jsonValue({ maxDepth: 3 })
  }
}

/** Argument sets for one tool: mostly schema-shaped, then mutated in the ways a broken model mutates them. */
const argumentSets = (a: Arena, schema: JsonSchema): fc.Arbitrary<unknown> => {
  const valid = fromSchema(a, schema, undefined) as fc.Arbitrary<Record<string, unknown>>
  const keys = Object.keys(schema.properties ?? {})
  const withHostileField = keys.length === 0
    ? valid
    : fc.tuple(valid, fc.constantFrom(...keys), hostileValue).map(([args, key, value]) => ({ ...args, [key]: value }))
  const withUnknownKey = fc.tuple(valid, fc.string({ minLength: 1, maxLength: 12 }), hostileValue)
    .map(([args, key, value]) => ({ ...args, [key]: value }))
  const withoutRequired = (schema.required ?? []).length === 0
    ? valid
    : fc.tuple(valid, fc.constantFrom(...(schema.required ?? []))).map(([args, key]) => {
      const { [key]: _dropped, ...rest } = args
      return rest
    })
  const hostileObject = fc.dictionary(fc.oneof(fc.constantFrom(...keys, "__proto__", "constructor"), fc.string({ maxLength: 8 })), hostileValue, {
    maxKeys: 6
  })
  return fc.oneof(
    { weight: 8, arbitrary: valid },
    { weight: 3, arbitrary: withHostileField },
    { weight: 1, arbitrary: withUnknownKey },
    { weight: 1, arbitrary: withoutRequired },
    { weight: 1, arbitrary: hostileObject }
  )
}

/** Every tool's input schema (deferred tools revealed through `tool_search`), and which were deferred. */
const allSchemas = (a: Arena) =>
  Effect.gen(function*() {
    const first = yield* Effect.promise(() => a.client.listTools())
    const instructions = a.client.getInstructions() ?? ""
    const deferred = [...instructions.matchAll(/^- "([a-z_]+)":/gm)].map((m) => m[1]!)
    for (const name of deferred) yield* a.call("tool_search", { query: `select:${name}` })
    const listed = deferred.length === 0 ? first : yield* Effect.promise(() => a.client.listTools())
    return { schemas: new Map(listed.tools.map((tool) => [tool.name, tool.inputSchema as JsonSchema])), deferred: new Set(deferred) }
  })

/** Seeds a root with a text file and a notebook the fuzzer aims at, both read (so edits can land). */
const seedRoot = (a: Arena) =>
  Effect.gen(function*() {
    fs.writeFileSync(path.join(a.root, "seed.txt"), "seed line\nneedle line\n")
    fs.writeFileSync(
      path.join(a.root, "seed.ipynb"),
      JSON.stringify({ cells: [{ cell_type: "code", id: "c1", source: ["x = 1"], metadata: {}, outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 })
    )
    fs.mkdirSync(path.join(a.root, "fz"))
    yield* a.call("read_file", { file_path: "seed.txt" })
    yield* a.call("read_file", { file_path: "seed.ipynb" })
  })

const isBad = (answer: Answer) =>
  answer.kind === "untyped" || answer.kind === "protocol" || answer.kind === "hang" || answer.text.includes(CANARY)

/**
 * Fuzzes one tool against a server of its own, so that a call that kills or wedges the server
 * costs only that tool's run: it stops there (counted as a crash), the other tools go on.
 */
const fuzzTool = (name: string, schema: JsonSchema, deferred: boolean, seed: number) =>
  Effect.scoped(Effect.gen(function*() {
    const a = yield* arena()
    yield* seedRoot(a)
    if (deferred) yield* a.call("tool_search", { query: `select:${name}` })
    const before = snapshot(a.outside)
    const tally = emptyTally()
    const bad: Array<Answer> = []
    const sets = fc.sample(argumentSets(a, schema), { numRuns: RUNS, seed })
    const started = Date.now()
    for (let start = 0; start < sets.length; start += BATCH) {
      const answers = yield* Effect.all(
        sets.slice(start, start + BATCH).map((args) => a.call(name, args, 10_000)),
        { concurrency: 8 }
      )
      for (const answer of answers) {
        count(tally, answer)
        if (isBad(answer)) bad.push(answer)
      }
      const ping = yield* a.call("list_directory", { path: "." }, 10_000)
      if (process.env.TW_ABUSE_PROGRESS) {
        const slow = answers.filter((x) => x.ms > 2_000).map((x) => [Math.round(x.ms), x.kind, JSON.stringify(x.args).slice(0, 160)])
        fs.appendFileSync(process.env.TW_ABUSE_PROGRESS, `${name} ${start} ${Date.now() - started}ms ping=${ping.kind} slow=${JSON.stringify(slow)}\n`)
      }
      // A server that died or stopped answering ends this tool's run: every later call would only time out.
      if (!a.alive() || ping.kind !== "ok") {
        tally.crashes++
        bad.push({ ...ping, name: `${ping.name} (ping after a batch of ${name})` })
        break
      }
    }
    tally.wallMs = Date.now() - started
    const changed = changedEntries(before, snapshot(a.outside))
    tally.escapes += changed.length
    return { name, tally, bad, changed }
  }))

describe("abuse: a fuzzer of typed and hostile argument sets over every tool", () => {
  it.live(`${RUNS} argument sets per tool: no crash, no untyped error, no hang, the server still answers`, () =>
    Effect.gen(function*() {
      const { deferred, schemas } = yield* Effect.scoped(Effect.flatMap(arena(), allSchemas))
      const tools = [...schemas].sort(([x], [y]) => x.localeCompare(y))
      const runs = yield* Effect.forEach(tools, ([name, schema], i) => fuzzTool(name, schema, deferred.has(name), SEED + i), {
        concurrency: 2
      })
      const tallies: Record<string, Tally> = {}
      const total = emptyTally()
      for (const { name, tally: t } of runs) {
        tallies[name] = t
        for (const key of ["attempts", "ok", "typed", "untyped", "protocol", "hangs", "escapes", "crashes"] as const) total[key] += t[key]
        total.maxMs = Math.max(total.maxMs, t.maxMs)
        total.wallMs += t.wallMs
        for (const [code, n] of Object.entries(t.codes)) total.codes[code] = (total.codes[code] ?? 0) + n
      }
      writeReport("abuse-fuzz", { total, ...tallies })
      const bad = runs.flatMap((run) => run.bad)
      // The failing argument sets in full, to reproduce them with `toolwright call`.
      fs.writeFileSync(path.join(reportDir, "abuse-fuzz-failures.json"), JSON.stringify(bad, null, 2) + "\n")

      assert.isAtLeast(schemas.size, 16)
      assert.deepStrictEqual(runs.flatMap((run) => run.changed), [], "files outside the root changed")
      assert.strictEqual(bad.length, 0, `${bad.length} of ${total.attempts} calls:\n${describeAnswers(bad, 20)}`)
      assert.strictEqual(total.crashes, 0, `servers died or stopped answering: ${runs.filter((r) => r.tally.crashes > 0).map((r) => r.name).join(", ")}`)
    }), 300_000 + RUNS * 2_000)
})
