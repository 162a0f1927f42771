/**
 * `grep_search` as a tool, through the real scheduler: the reference contract (§11.1), every
 * backend forced through the tool (option and environment variable), output vectors and caps,
 * every error code, several roots, and grep hits counting as reads (§4.1).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { afterAll } from "vitest"
import { type LaunchGate, makeLaunchGate } from "../../src/process/index.js"
import { ToolRegistry } from "../../src/registry/registry.js"
import { Approver } from "../../src/run/approver.js"
import { formatGrepResult, type GrepBackendName, type GrepSearchData, lineRuns } from "../../src/search/index.js"
import { makeSearchFixture, removeTree } from "./fixture.js"
import { call, dataOf, failure, makeRecordingApprover, okText, searchSession, tempDir, write } from "./tools.support.js"

const fixture = makeSearchFixture()
afterAll(() => removeTree(fixture))

const BACKENDS: ReadonlyArray<GrepBackendName> = ["js", "ripgrep", "git-grep", "grep"]

/** A session over `roots` with a fresh state dir. */
const withSession = <A, E>(
  roots: ReadonlyArray<string>,
  body: Effect.Effect<A, E, any>,
  options: Omit<Parameters<typeof searchSession>[0], "roots" | "stateDir"> = {}
) =>
  Effect.gen(function*() {
    const stateDir = yield* tempDir("tw-search-state-")
    return yield* body.pipe(Effect.provide(searchSession({ roots, stateDir, ...options })))
  })

describe("grep_search: declaration", () => {
  it.live("follows the reference contract: name, display, Kind Search, 20,000-char budget, path param", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      yield* withSession([root], Effect.gen(function*() {
        const tool = yield* ToolRegistry.use((r) => r.ensure("grep_search"))
        assert.strictEqual(tool.displayName, "Grep")
        assert.strictEqual(tool.kind, "search")
        assert.strictEqual(tool.maxOutputChars, 20_000)
        assert.isFalse(tool.shouldDefer)
        assert.deepStrictEqual(tool.pathFields, ["path"])
        const schema = tool.parametersJsonSchema as {
          properties: Record<string, { minimum?: number }>
          required: Array<string>
          additionalProperties: boolean
        }
        assert.deepStrictEqual(Object.keys(schema.properties), ["pattern", "glob", "path", "limit", "case_sensitive"])
        assert.strictEqual(schema.properties.limit!.minimum, 1)
        assert.deepStrictEqual(schema.required, ["pattern"])
        assert.isFalse(schema.additionalProperties)
        fs.mkdirSync(path.join(root, "src"))
        const invocation = yield* tool.build({ pattern: "alpha", path: "src", glob: "*.ts" })
        assert.strictEqual(invocation.description, "'alpha' in src (filter: '*.ts')")
        assert.isTrue(invocation.concurrencySafe)
        assert.strictEqual(yield* invocation.defaultPermission, "allow")
        assert.strictEqual((yield* tool.build({ pattern: "x" })).description, "'x'")
      }))
    }))
})

describe("grep_search: every backend through the tool", () => {
  const QUERIES: ReadonlyArray<Record<string, unknown>> = [
    { pattern: "hello" },
    { pattern: "^hello" },
    { pattern: "HeLLo wOrLd" },
    { pattern: "\\d{4}-\\d{2}-\\d{2}" },
    { pattern: "hello", glob: "*.ts" },
    { pattern: "hello", path: "src" },
    { pattern: "line$", path: "src/util/crlf.txt" },
    { pattern: "hello", limit: 3 },
    { pattern: "no-such-text-anywhere" }
  ]

  it.live("ripgrep, git grep, system grep and JS give the same text, and the forced engine runs", () =>
    Effect.gen(function*() {
      const outputs = new Map<GrepBackendName, Array<string>>()
      for (const backend of BACKENDS) {
        yield* withSession([fixture], Effect.gen(function*() {
          const texts: Array<string> = []
          for (const args of QUERIES) texts.push(okText(yield* call("grep_search", args)))
          outputs.set(backend, texts)
          const data = dataOf<GrepSearchData>(yield* call("grep_search", { pattern: "hello" }))
          assert.deepStrictEqual(data.engines, [backend])
          assert.deepStrictEqual(data.fallbackReasons, [])
        }), { grep: { backend } })
      }
      const js = outputs.get("js")!
      for (const backend of BACKENDS) assert.deepStrictEqual(outputs.get(backend), js, `${backend} agrees with js`)
      assert.strictEqual(js[2], `Found 1 match for pattern "HeLLo wOrLd" in the workspace directory:\n---\nREADME.md:1:Hello World`)
      // ignored (.gitignore, .toolwrightignore), binary and symlinked files stay out
      for (const hidden of ["dist/", "debug.log", "private/", "cert.pem", "bin/", "link.txt"]) assert.notInclude(js[0], hidden)
      assert.include(js[0], "keep.log:1:hello keep")
      assert.strictEqual(
        js[6],
        `Found 3 matches for pattern "line$" in path "src/util/crlf.txt":\n---\n` +
          "src/util/crlf.txt:1:alpha line\nsrc/util/crlf.txt:2:Beta LINE\nsrc/util/crlf.txt:5:last line no newline"
      )
      assert.match(
        js[7]!,
        /^Found at least 4 matches for pattern "hello" in the workspace directory:\n---\n(.+\n){3}---\n\[Showing the first 3; the search stopped there, more lines match\. To see others, narrow the pattern, path or glob\.\]$/
      )
    }), 120_000)

  it.live("TOOLWRIGHT_GREP_BACKEND forces a backend; the option wins over it; auto picks one at run time", () =>
    Effect.gen(function*() {
      const engineWith = (grep: Parameters<typeof searchSession>[0]["grep"]) =>
        withSession([fixture], Effect.map(call("grep_search", { pattern: "hello" }), (r) => dataOf<GrepSearchData>(r).engines), { grep: grep! })
      for (const backend of BACKENDS) {
        assert.deepStrictEqual(yield* engineWith({ env: { TOOLWRIGHT_GREP_BACKEND: backend } }), [backend])
      }
      assert.deepStrictEqual(yield* engineWith({ backend: "js", env: { TOOLWRIGHT_GREP_BACKEND: "grep" } }), ["js"])
      const auto = yield* engineWith({ env: { TOOLWRIGHT_GREP_BACKEND: " auto " } })
      assert.include(BACKENDS, auto[0])
      assert.deepStrictEqual(yield* engineWith({ env: {} }), auto)
    }), 60_000)
})

describe("grep_search: output vectors and caps", () => {
  it.live("no matches, one match, a filter, a file path, resultFilePaths", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const a = write(root, "src/a.ts", "const x = 0\nconst alpha = 1\n")
      write(root, "src/b.js", "ALPHA in js\n")
      yield* withSession([root], Effect.gen(function*() {
        const none = yield* call("grep_search", { pattern: "zzz" })
        assert.strictEqual(okText(none), `No matches found for pattern "zzz" in the workspace directory.`)
        assert.strictEqual(none._tag === "Success" && none.display, "No matches found")
        assert.strictEqual(
          okText(yield* call("grep_search", { pattern: "zzz", path: "src", glob: "*.ts" })),
          `No matches found for pattern "zzz" in path "src" (filter: "*.ts").`
        )
        const one = yield* call("grep_search", { pattern: "alpha", path: "src", glob: "*.ts" })
        assert.strictEqual(okText(one), `Found 1 match for pattern "alpha" in path "src" (filter: "*.ts"):\n---\nsrc/a.ts:2:const alpha = 1`)
        assert.strictEqual(one._tag === "Success" && one.display, "Found 1 match")
        assert.deepStrictEqual(one._tag === "Success" && one.resultFilePaths, [a])
        const two = yield* call("grep_search", { pattern: "alpha" })
        assert.strictEqual(okText(two), `Found 2 matches for pattern "alpha" in the workspace directory:\n---\nsrc/a.ts:2:const alpha = 1\nsrc/b.js:1:ALPHA in js`)
        assert.strictEqual(
          okText(yield* call("grep_search", { pattern: "alpha", path: a })),
          `Found 1 match for pattern "alpha" in path "src/a.ts":\n---\nsrc/a.ts:2:const alpha = 1`
        )
        // a path with shell escapes, as a model copies it from a terminal
        write(root, "my dir/n.txt", "alpha\n")
        assert.include(okText(yield* call("grep_search", { pattern: "alpha", path: "my\\ dir" })), "my dir/n.txt:1:alpha")
      }))
    }))

  it.live("limit: the search stops one line past it, the header says \"at least\", the trailer says how to see more", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      write(root, "five.txt", "hit 1\nhit 2\nhit 3\nhit 4\nhit 5\n")
      yield* withSession([root], Effect.gen(function*() {
        const cut = yield* call("grep_search", { pattern: "hit", limit: 2 })
        assert.strictEqual(
          okText(cut),
          `Found at least 3 matches for pattern "hit" in the workspace directory:\n---\nfive.txt:1:hit 1\nfive.txt:2:hit 2\n---\n` +
            `[Showing the first 2; the search stopped there, more lines match. To see others, narrow the pattern, path or glob.]`
        )
        assert.strictEqual(cut._tag === "Success" && cut.display, "Found at least 3 matches (truncated)")
        const data = dataOf<GrepSearchData>(cut)
        assert.strictEqual(data.matches.length, 2)
        assert.strictEqual(data.totalMatches, 3)
        assert.isTrue(data.totalIsLowerBound)
        assert.isTrue(data.truncated)
        const whole = yield* call("grep_search", { pattern: "hit", limit: 5 })
        assert.match(okText(whole), /^Found 5 matches/)
        assert.notInclude(okText(whole), "truncated")
        assert.isUndefined(dataOf<GrepSearchData>(whole).totalIsLowerBound)
        assert.match(okText(yield* call("grep_search", { pattern: "hit", limit: 4 })), /^Found at least 5 matches/)
      }))
    }))

  it.live("the 1,000-line cap, at its edge", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      write(root, "k.txt", Array.from({ length: 1000 }, (_, i) => `k${i}`).join("\n") + "\n")
      write(root, "l.txt", Array.from({ length: 1001 }, (_, i) => `l${i}`).join("\n") + "\n")
      yield* withSession([root], Effect.gen(function*() {
        const exact = okText(yield* call("grep_search", { pattern: "^k", path: "k.txt" })).split("\n")
        assert.strictEqual(exact.length, 2 + 1000)
        assert.strictEqual(exact.at(-1), "k.txt:1000:k999")
        const over = okText(yield* call("grep_search", { pattern: "^l", path: "l.txt" })).split("\n")
        assert.strictEqual(over[0], `Found 1001 matches for pattern "^l" in path "l.txt":`)
        assert.strictEqual(over.length, 2 + 1000 + 2)
        assert.strictEqual(over.at(-3), "l.txt:1000:l999")
        assert.strictEqual(over.at(-1), "[1 line truncated] ...")
      }))
    }))

  it.live("the 20,000-character budget: the tool cuts within it, so the pipeline never has to", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const line = (i: number) => `match ${String(i).padStart(4, "0")} ${"x".repeat(88)}`
      write(root, "wide.txt", Array.from({ length: 300 }, (_, i) => line(i)).join("\n") + "\n")
      yield* withSession([root], Effect.gen(function*() {
        const text = okText(yield* call("grep_search", { pattern: "^match" }))
        assert.isAtMost(text.length, 20_000)
        assert.isAbove(text.length, 19_800)
        assert.notInclude(text, "persisted-output")
        const lines = text.split("\n")
        const listed = lines.slice(2, -2)
        assert.isTrue(listed.at(-1)!.endsWith("..."), "the overflowing line is cut and marked")
        assert.strictEqual(listed[0], `wide.txt:1:${line(0)}`)
        assert.strictEqual(lines.at(-1), `[${300 - (listed.length - 1)} lines truncated] ...`)
      }))
    }))

  it("formatGrepResult reports how many matches are shown whole", () => {
    const matches = Array.from({ length: 3 }, (_, i) => ({ path: "a", absolutePath: "/a", line: i + 1, text: "y".repeat(50) }))
    const out = formatGrepResult({ matches, totalMatches: 3, engine: "js" }, { pattern: "y", location: { _tag: "Path", path: "a" }, maxChars: 120 })
    assert.strictEqual(out.fullyShown, 2)
    assert.isTrue(out.truncated)
    assert.deepStrictEqual(lineRuns([9, 3, 4, 5, 4, 12, 11]), [{ start: 3, end: 5 }, { start: 9, end: 9 }, { start: 11, end: 12 }])
    assert.deepStrictEqual(lineRuns([]), [])
  })
})

describe("grep_search: errors", () => {
  it.live("invalid_tool_params, search_path_not_found, path_not_in_workspace, grep_execution_error", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const outside = yield* tempDir("tw-outside-")
      write(root, "a.txt", "alpha\n")
      yield* withSession([root], Effect.gen(function*() {
        const regex = failure(yield* call("grep_search", { pattern: "foo(" }))
        assert.strictEqual(regex.code, "invalid_tool_params")
        assert.match(regex.message, /^Invalid regular expression pattern: foo\(\. Error: .*Unterminated group/)
        assert.deepStrictEqual(failure(yield* call("grep_search", { pattern: "a", limit: 0 })), {
          code: "invalid_tool_params",
          message: "params.limit: limit must be a positive integer",
          display: "params.limit: limit must be a positive integer"
        })
        assert.strictEqual(failure(yield* call("grep_search", { pattern: "a", limit: 1.5 })).code, "invalid_tool_params")
        assert.strictEqual(failure(yield* call("grep_search", {})).code, "invalid_tool_params")
        assert.strictEqual(failure(yield* call("grep_search", { pattern: "a", paths: "x" })).code, "invalid_tool_params")
        const missing = failure(yield* call("grep_search", { pattern: "a", path: "nope/deeper" }))
        assert.strictEqual(missing.code, "search_path_not_found")
        assert.include(missing.message, `Path does not exist: ${path.join(root, "nope/deeper")}.`)
        for (const where of [outside, "../", "/etc"]) {
          const out = failure(yield* call("grep_search", { pattern: "a", path: where }))
          assert.strictEqual(out.code, "path_not_in_workspace", where)
        }
      }))
      yield* withSession([root], Effect.gen(function*() {
        const bad = failure(yield* call("grep_search", { pattern: "alpha" }))
        assert.strictEqual(bad.code, "grep_execution_error")
        assert.match(bad.message, /^Error during grep search operation: TOOLWRIGHT_GREP_BACKEND is set to "fast", which is not a grep backend/)
        assert.match(bad.display, /^Error: TOOLWRIGHT_GREP_BACKEND/)
      }), { grep: { env: { TOOLWRIGHT_GREP_BACKEND: "fast" } } })
    }))

  it.live("execution_timeout: the call's own budget, and the JS engine's per-batch regex deadline", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      write(root, "redos.txt", `${"a".repeat(40)}!\n`)
      // the call's budget (60 s by default) at a size a test can wait for: it stops the regex worker too
      yield* withSession([root], Effect.gen(function*() {
        const started = performance.now()
        const slow = failure(yield* call("grep_search", { pattern: "(a+)+$" }))
        assert.strictEqual(slow.code, "execution_timeout")
        assert.match(slow.message, /^grep_search for '\(a\+\)\+\$' did not finish within 0\.3 s and was stopped\. Narrow it/)
        assert.isBelow(performance.now() - started, 5_000)
        // the server goes on: the next search answers
        assert.match(okText(yield* call("grep_search", { pattern: "!$" })), /^Found 1 match/)
      }), { grep: { backend: "js", timeoutMs: 300 } })
      // the regex deadline (REGEX_BATCH_TIMEOUT_MS, 5 s) fires first under the default budget
      yield* withSession([root], Effect.gen(function*() {
        const started = performance.now()
        const slow = failure(yield* call("grep_search", { pattern: "(a+)+$" }))
        assert.strictEqual(slow.code, "execution_timeout")
        assert.match(slow.message, /took more than 5 s to match 1 line\(s\) and the search was stopped: it backtracks catastrophically/)
        assert.isBelow(performance.now() - started, 10_000)
      }), { grep: { backend: "js" } })
    }), 30_000)

  it.live("a forced backend whose program is missing fails with grep_execution_error", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      write(root, "a.txt", "alpha\n")
      const savedPath = process.env.PATH
      yield* withSession([root], Effect.gen(function*() {
        // resolve the tool before hiding the programs, then search with nothing on PATH
        yield* ToolRegistry.use((r) => r.ensure("grep_search"))
        const result = yield* Effect.acquireUseRelease(
          Effect.sync(() => {
            process.env.PATH = root
          }),
          () => call("grep_search", { pattern: "alpha" }),
          () =>
            Effect.sync(() => {
              process.env.PATH = savedPath
            })
        )
        const error = failure(result)
        assert.strictEqual(error.code, "grep_execution_error")
        assert.strictEqual(error.message, "Error during grep search operation: ripgrep (rg) is not available on PATH")
      }), { grep: { backend: "ripgrep" } })
    }))
})

describe("grep_search: sessions of one process", () => {
  it.live("probe the backend once: sessions sharing the launch gate probe and walk once, later ones launch only their search", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      write(root, "src/a.ts", "needle\n")
      const launchesOf = (gate: LaunchGate.Service) => Effect.map(gate.stats, (s) => s.admitted)
      const search = (gate: LaunchGate.Service) =>
        withSession([root], Effect.map(call("grep_search", { pattern: "needle", path: "src" }), okText), { launchGate: gate })
      // one session alone: `rg --version` (and, with ripgrep 13, a walk for .rgignore files), then its search
      const alone = makeLaunchGate()
      const text = yield* search(alone)
      const probes = (yield* launchesOf(alone)) - 1
      assert.isAtLeast(probes, 1)
      // four sessions of one process starting together: the same probes once, then four searches
      const shared = makeLaunchGate()
      const texts = yield* Effect.all([search(shared), search(shared), search(shared), search(shared)], { concurrency: "unbounded" })
      assert.deepStrictEqual(texts, [text, text, text, text])
      assert.strictEqual(yield* launchesOf(shared), probes + 4)
      // a later session of that process launches its search only
      assert.strictEqual(yield* search(shared), text)
      assert.strictEqual(yield* launchesOf(shared), probes + 5)
    }))
})

describe("grep_search: workspace roots", () => {
  it.live("several roots: searched and merged, primary-root paths relative, others absolute; nested roots once", () =>
    Effect.gen(function*() {
      const a = yield* tempDir("tw-root-a-")
      const b = yield* tempDir("tw-root-b-")
      write(a, "x.ts", "needle one\n")
      write(a, "sub/y.ts", "needle two\n")
      write(b, "z.ts", "needle three\n")
      yield* withSession([a, b], Effect.gen(function*() {
        const text = okText(yield* call("grep_search", { pattern: "needle" }))
        assert.strictEqual(
          text,
          `Found 3 matches for pattern "needle" across 2 workspace directories:\n---\nsub/y.ts:1:needle two\nx.ts:1:needle one\n${b}/z.ts:1:needle three`
        )
        assert.strictEqual(
          okText(yield* call("grep_search", { pattern: "needle", path: b })),
          `Found 1 match for pattern "needle" in path "${b}":\n---\n${b}/z.ts:1:needle three`
        )
      }))
      yield* withSession([a, path.join(a, "sub")], Effect.gen(function*() {
        assert.strictEqual(
          okText(yield* call("grep_search", { pattern: "needle" })),
          `Found 2 matches for pattern "needle" across 2 workspace directories:\n---\nsub/y.ts:1:needle two\nx.ts:1:needle one`
        )
      }))
    }))

  it.live("allowed without asking in default mode, and in plan mode (it changes nothing)", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      write(root, "a.txt", "alpha\n")
      const recording = yield* makeRecordingApprover([], { _tag: "cancel" })
      for (const mode of ["default", "plan"] as const) {
        yield* withSession([root], Effect.gen(function*() {
          assert.include(okText(yield* call("grep_search", { pattern: "alpha" })), "a.txt:1:alpha")
          assert.include(okText(yield* call("glob", { pattern: "*.txt" })), path.join(root, "a.txt"))
          assert.include(okText(yield* call("list_directory", { path: "." })), "a.txt")
        }), { mode, approver: Layer.succeed(Approver, recording.approver) })
      }
      assert.deepStrictEqual(yield* recording.requests, [])
    }))
})

describe("grep_search: hits count as reads", () => {
  it.live("a file seen only through grep can be edited; a file never seen cannot", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const seen = write(root, "seen.ts", "const greeting = 'hello'\nconst other = 1\n")
      const unseen = write(root, "unseen.ts", "const greeting = 'hello'\n")
      yield* withSession([root], Effect.gen(function*() {
        const grep = dataOf<GrepSearchData>(yield* call("grep_search", { pattern: "other" }))
        assert.strictEqual(grep.filesRecordedAsRead, 1)
        const edit = yield* call("edit", { file_path: "seen.ts", old_string: "'hello'", new_string: "'hi'" })
        assert.strictEqual(edit._tag, "Success", JSON.stringify(edit))
        assert.strictEqual(fs.readFileSync(seen, "utf8"), "const greeting = 'hi'\nconst other = 1\n")
        const blind = failure(yield* call("edit", { file_path: "unseen.ts", old_string: "'hello'", new_string: "'hi'" }))
        assert.strictEqual(blind.code, "edit_requires_prior_read")
        assert.strictEqual(fs.readFileSync(unseen, "utf8"), "const greeting = 'hello'\n")
      }))
    }))

  it.live("readEvidence ranges: only the hit lines count as seen", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const file = write(root, "ten.txt", Array.from({ length: 10 }, (_, i) => `line ${i + 1}${i === 2 || i === 3 ? " target" : ""}`).join("\n") + "\n")
      yield* withSession([root], Effect.gen(function*() {
        okText(yield* call("grep_search", { pattern: "target" }))
        const unseen = failure(yield* call("edit", { file_path: "ten.txt", old_string: "line 7", new_string: "line seven" }))
        assert.strictEqual(unseen.code, "edit_requires_prior_read")
        assert.include(unseen.message, "lines seen so far: 3-4")
        const ok = yield* call("edit", { file_path: "ten.txt", old_string: "line 4 target", new_string: "line four" })
        assert.strictEqual(ok._tag, "Success", JSON.stringify(ok))
        assert.include(fs.readFileSync(file, "utf8"), "line 3 target\nline four\nline 5")
      }), { readEvidence: "ranges" })
    }))

  it.live("a notebook hit is recorded as not cacheable; a file changed after the search is stale", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      write(root, "nb.ipynb", JSON.stringify({ cells: [{ cell_type: "code", source: ["print('needle')"] }] }, null, 1))
      const later = write(root, "later.txt", "needle here\n")
      yield* withSession([root], Effect.gen(function*() {
        const hits = dataOf<GrepSearchData>(yield* call("grep_search", { pattern: "needle" }))
        assert.strictEqual(hits.filesRecordedAsRead, 2)
        const notebook = failure(yield* call("edit", { file_path: "nb.ipynb", old_string: "needle", new_string: "pin" }))
        assert.strictEqual(notebook.code, "edit_requires_prior_read")
        assert.include(notebook.message, "notebook_edit")
        fs.appendFileSync(later, "more\n")
        const stale = failure(yield* call("edit", { file_path: "later.txt", old_string: "needle", new_string: "pin" }))
        assert.strictEqual(stale.code, "file_changed_since_read")
      }))
    }))
})
