/**
 * The output knobs reach the tools through the session: `TOOLWRIGHT_TRUNCATE_LINES` and
 * `TOOLWRIGHT_TRUNCATE_CHARS`, read by the session layer from the environment, cut read_file,
 * grep_search and glob; glob's collection cap is set by its option or `TOOLWRIGHT_GLOB_MAX_COLLECTED`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { makeReadFile } from "../../src/files/readFile.js"
import type { ToolFactory } from "../../src/registry/registry.js"
import { Approver } from "../../src/run/approver.js"
import type { SessionServices } from "../../src/run/catalog.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import { type GlobData, type GlobToolOptions, makeGlobTool, makeGrepSearchTool } from "../../src/search/index.js"
import { call, dataOf, failure, okText, tempDir, write } from "./tools.support.js"

/** Runs `body` in a session built while `env` is set in `process.env` (the session reads it once, at build). */
const withEnv = <A, E>(
  env: Record<string, string>,
  root: string,
  body: Effect.Effect<A, E, any>,
  glob: GlobToolOptions = {}
) =>
  Effect.gen(function*() {
    const stateDir = yield* tempDir("tw-limits-state-")
    const tools: ReadonlyArray<ToolFactory<SessionServices>> = [
      { name: "grep_search", load: makeGrepSearchTool({ backend: "ripgrep" }) },
      { name: "glob", load: makeGlobTool({ env: { ...process.env, ...env }, ...glob }) },
      { name: "read_file", load: makeReadFile }
    ]
    const layer = SessionLayer.layer({ roots: [root], stateDir, builtins: false, tools, mode: "yolo" }).pipe(
      Layer.provide(Approver.layerFixed({ _tag: "proceed_once" }))
    )
    const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]))
    return yield* Effect.acquireUseRelease(
      Effect.sync(() => Object.assign(process.env, env)),
      () => body.pipe(Effect.provide(layer)),
      () =>
        Effect.sync(() => {
          for (const [k, v] of Object.entries(saved)) {
            if (v === undefined) delete process.env[k]
            else process.env[k] = v
          }
        })
    )
  })

const tree = Effect.gen(function*() {
  const root = yield* tempDir()
  write(root, "lines.txt", Array.from({ length: 20 }, (_, i) => `hit line ${i + 1}`).join("\n") + "\n")
  write(root, "wide.txt", `hit ${"w".repeat(400)}\n`)
  for (let i = 0; i < 5; i++) write(root, `g/file-with-a-long-name-${i}.log`, "x\n")
  return root
})

describe("output knobs reach the tools", () => {
  it.live("TOOLWRIGHT_TRUNCATE_LINES: read_file, grep_search and glob show that many lines", () =>
    Effect.gen(function*() {
      const root = yield* tree
      yield* withEnv({ TOOLWRIGHT_TRUNCATE_LINES: "3" }, root, Effect.gen(function*() {
        const read = okText(yield* call("read_file", { file_path: "lines.txt" }))
        assert.include(read, "hit line 3")
        assert.notInclude(read, "hit line 4")
        const grep = okText(yield* call("grep_search", { pattern: "hit line" }))
        assert.match(grep, /^Found 20 matches/)
        assert.include(grep, "lines.txt:3:hit line 3")
        assert.notInclude(grep, "lines.txt:4:")
        const glob = yield* call("glob", { pattern: "**/*.log" })
        assert.strictEqual(dataOf<GlobData>(glob).shown.length, 3)
        assert.include(okText(glob), "[2 files truncated] ...")
      }))
    }))

  it.live("TOOLWRIGHT_TRUNCATE_CHARS: read_file, grep_search and glob stay within that many characters", () =>
    Effect.gen(function*() {
      const root = yield* tree
      // the same calls without the knob show everything
      yield* withEnv({}, root, Effect.gen(function*() {
        assert.include(okText(yield* call("read_file", { file_path: "wide.txt" })), "w".repeat(400))
        assert.include(okText(yield* call("grep_search", { pattern: "hit w" })), "w".repeat(400))
        assert.strictEqual(dataOf<GlobData>(yield* call("glob", { pattern: "**/*.log" })).shown.length, 5)
      }))
      yield* withEnv({ TOOLWRIGHT_TRUNCATE_CHARS: "120" }, root, Effect.gen(function*() {
        const read = okText(yield* call("read_file", { file_path: "wide.txt" }))
        assert.notInclude(read, "w".repeat(400))
        assert.include(read, "w".repeat(50))
        const grep = okText(yield* call("grep_search", { pattern: "hit w" }))
        assert.match(grep, /^Found 1 match/)
        assert.include(grep, "wide.txt:1:hit www")
        assert.notInclude(grep, "w".repeat(400))
        const glob = yield* call("glob", { pattern: "**/*.log" })
        const shown = dataOf<GlobData>(glob).shown
        assert.isBelow(shown.length, 5)
        assert.isAbove(shown.length, 0)
        assert.isTrue(dataOf<GlobData>(glob).truncated)
      }))
    }))

  it.live("glob's collection cap: the maxCollected option, TOOLWRIGHT_GLOB_MAX_COLLECTED, and an invalid setting", () =>
    Effect.gen(function*() {
      const root = yield* tree
      const capped = (text: string, data: GlobData) => {
        assert.match(text, /^Found at least 3 file\(s\) matching "\*\*\/\*\.log"/)
        assert.isTrue(data.hitCollectionLimit)
        assert.strictEqual(data.entries.length, 3)
      }
      yield* withEnv({}, root, Effect.gen(function*() {
        const r = yield* call("glob", { pattern: "**/*.log" })
        capped(okText(r), dataOf<GlobData>(r))
      }), { maxCollected: 3 })
      yield* withEnv({ TOOLWRIGHT_GLOB_MAX_COLLECTED: "3" }, root, Effect.gen(function*() {
        const r = yield* call("glob", { pattern: "**/*.log" })
        capped(okText(r), dataOf<GlobData>(r))
      }))
      yield* withEnv({ TOOLWRIGHT_GLOB_MAX_COLLECTED: "many" }, root, Effect.gen(function*() {
        const bad = failure(yield* call("glob", { pattern: "**/*.log" }))
        assert.strictEqual(bad.code, "glob_execution_error")
        assert.match(bad.message, /TOOLWRIGHT_GLOB_MAX_COLLECTED is set to "many", which is not a positive integer/)
      }))
    }))
})
