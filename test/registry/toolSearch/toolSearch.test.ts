// tool_search over a live registry: the keyword index gives what the reference ranking over the
// registry's hidden list gives, across reveals, clears, registrations and removals.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import fc from "fast-check"
import * as Registry from "../../../src/registry/registry.js"
import { formatSearchResult, keywordSearch } from "../../../src/registry/toolSearch/index.js"
import { makeToolSearch, type ToolSearchData } from "../../../src/registry/toolSearch/toolSearch.js"
import { sortTools } from "../../../src/tool/declarations.js"
import { Kind } from "../../../src/tool/kind.js"
import { textResult } from "../../../src/tool/result.js"
import { type AnyTool, defineTool, infoOf } from "../../../src/tool/tool.js"

const SEED = 20261202

const makeTool = (
  name: string,
  options: { readonly description?: string; readonly hint?: string; readonly deferred?: boolean; readonly serverName?: string; readonly displayName?: string } = {}
): AnyTool =>
  defineTool({
    name,
    displayName: options.displayName ?? name,
    description: options.description ?? `Does ${name}`,
    kind: Kind.Other,
    shouldDefer: options.deferred ?? true,
    searchHint: options.hint,
    serverName: options.serverName,
    params: Schema.Struct({ q: Schema.String.annotate({ description: "q" }) }),
    invoke: () => Effect.succeed({ description: "x", execute: () => Effect.succeed(textResult("x")) })
  })

const textOf = (result: { readonly llmContent: ReadonlyArray<{ readonly type: string }> }): string =>
  result.llmContent.map((part) => ("text" in part ? String(part.text) : "")).join("")

/** What tool_search returned before the index: the reference ranking over the hidden list, then the same load. */
const expectedText = (hidden: ReadonlyArray<AnyTool>, query: string, max: number): string => {
  const ranked = keywordSearch(hidden, query, max)
  if (ranked._tag !== "Matches") return ranked.message.llmContent
  const byName = new Map(hidden.map((t) => [t.name, t]))
  return formatSearchResult({
    schemas: ranked.names.map((name) => {
      const t = byName.get(name)!
      return { name: t.name, description: t.description, parametersJsonSchema: t.parametersJsonSchema }
    }),
    notFound: [],
    truncated: []
  }).llmContent
}

const WORDS = ["cron", "delete", "stop", "list", "send", "message", "issue", "file", "repo", "user", "search", "create"]

describe("tool_search keyword mode over a registry", () => {
  it("matches the reference ranking over the hidden list across reveals, clears, registrations and removals", async () => {
    const toolArb = fc.record({
      a: fc.constantFrom(...WORDS),
      b: fc.constantFrom(...WORDS),
      d: fc.constantFrom(...WORDS),
      h: fc.option(fc.constantFrom(...WORDS), { nil: undefined }),
      server: fc.option(fc.constantFrom("gh", "slack"), { nil: undefined })
    })
    const step = fc.oneof(
      {
        arbitrary: fc.record({
          _tag: fc.constant("query" as const),
          words: fc.array(fc.constantFrom(...WORDS, "+stop", "+cron"), { minLength: 1, maxLength: 3 }),
          max: fc.integer({ min: 1, max: 8 })
        }),
        weight: 4
      },
      fc.record({ _tag: fc.constant("reveal" as const), picks: fc.array(fc.nat(), { maxLength: 4 }) }),
      fc.record({ _tag: fc.constant("clear" as const) }),
      fc.record({ _tag: fc.constant("register" as const), tool: toolArb }),
      fc.record({ _tag: fc.constant("remove" as const), server: fc.constantFrom("gh", "slack") })
    )
    let serial = 0
    const build = (t: { a: string; b: string; d: string; h: string | undefined; server: string | undefined }) =>
      makeTool(`t${serial++}_${t.a}_${t.b}`, {
        description: `Does ${t.d} things`,
        ...(t.h !== undefined ? { hint: `${t.h} hint` } : {}),
        ...(t.server !== undefined ? { serverName: t.server } : {})
      })
    let queries = 0
    let matched = 0
    await fc.assert(
      fc.asyncProperty(fc.array(toolArb, { minLength: 1, maxLength: 25 }), fc.array(step, { minLength: 1, maxLength: 12 }), (initial, steps) =>
        Effect.runPromise(Effect.scoped(Effect.gen(function*() {
          const registry = yield* Registry.make()
          const search = makeToolSearch(registry)
          for (const t of initial) yield* registry.register(build(t))
          for (const s of steps) {
            if (s._tag === "query") {
              const query = s.words.join(" ")
              const hidden = yield* registry.hiddenTools
              const expected = expectedText(hidden, query, s.max)
              const result = yield* search.call({ query, max_results: s.max })
              assert.strictEqual(textOf(result), expected, query)
              queries++
              if ((result.data as ToolSearchData).loaded.length > 0) matched++
            } else if (s._tag === "reveal") {
              const all = yield* registry.names
              yield* registry.reveal(s.picks.map((p) => all[p % all.length]!))
            } else if (s._tag === "clear") {
              yield* registry.clearRevealed
            } else if (s._tag === "register") {
              yield* registry.register(build(s.tool))
            } else {
              yield* registry.removeByServer(s.server)
            }
          }
        })))
      ),
      { seed: SEED, numRuns: 80 }
    )
    assert.isAbove(queries, 200)
    assert.isAbove(matched, 100)
  })

  it.effect("keeps the index across reveals and rebuilds it when the tool set changes", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make()
      const search = makeToolSearch(registry)
      yield* registry.register(makeTool("cron_delete", { hint: "cron stop" }))
      yield* registry.register(makeTool("cron_list", { hint: "cron list" }))
      const before = yield* registry.deferredView
      const first = yield* search.call({ query: "cron", max_results: 1 })
      assert.deepStrictEqual((first.data as ToolSearchData).loaded, ["cron_delete"])
      const afterReveal = yield* registry.deferredView
      assert.strictEqual(afterReveal.deferred, before.deferred, "a reveal keeps the deferred list")
      assert.isFalse(afterReveal.isHidden("cron_delete"))
      assert.isTrue(afterReveal.isHidden("cron_list"))
      // The revealed tool is no longer a candidate.
      const second = yield* search.call({ query: "cron", max_results: 5 })
      assert.deepStrictEqual((second.data as ToolSearchData).loaded, ["cron_list"])
      assert.strictEqual((yield* search.call({ query: "cron", max_results: 5 })).llmContent.length, 1)
      assert.match(textOf(yield* search.call({ query: "cron" })), /^No tools found matching 'cron'/)
      // A new tool changes the tool set: the next query sees it.
      yield* registry.register(makeTool("cron_pause", { hint: "cron" }))
      assert.notStrictEqual((yield* registry.deferredView).deferred, before.deferred)
      assert.deepStrictEqual(((yield* search.call({ query: "cron" })).data as ToolSearchData).loaded, ["cron_pause"])
      yield* registry.clearRevealed
      assert.deepStrictEqual(((yield* search.call({ query: "cron", max_results: 5 })).data as ToolSearchData).loaded, [
        "cron_delete",
        "cron_list",
        "cron_pause"
      ])
    }))

  it.effect("finds a declared deferred tool without loading it, loads it when found, and searches on after the load", () =>
    Effect.gen(function*() {
      const loads = yield* Ref.make(0)
      const real = makeTool("notebook_edit", { hint: "jupyter notebook" })
      const registry = yield* Registry.make([{
        name: "notebook_edit",
        info: infoOf(real),
        load: Effect.as(Ref.update(loads, (n) => n + 1), real)
      }])
      yield* registry.register(makeTool("notebook_read", { hint: "jupyter notebook" }))
      const search = makeToolSearch(registry)
      const view = yield* registry.deferredView
      assert.deepStrictEqual(view.deferred.map((t) => t.name), ["notebook_edit", "notebook_read"])
      assert.strictEqual(yield* Ref.get(loads), 0)
      const found = yield* search.call({ query: "jupyter", max_results: 1 })
      assert.deepStrictEqual((found.data as ToolSearchData).loaded, ["notebook_edit"])
      assert.strictEqual(yield* Ref.get(loads), 1)
      // The load replaced the stand-in (a new tool set): the index is rebuilt and the reveal kept.
      assert.deepStrictEqual(((yield* search.call({ query: "jupyter" })).data as ToolSearchData).loaded, ["notebook_read"])
      assert.strictEqual(yield* Ref.get(loads), 1)
    }))
})

describe("declaration list after reveals", () => {
  it("is the name-sorted union of the visible and the revealed tools, whatever is revealed", async () => {
    const visible = Array.from({ length: 60 }, (_, i) => makeTool(`v${String(i * 7 % 60).padStart(2, "0")}_tool`, { deferred: false }))
    const deferred = Array.from({ length: 60 }, (_, i) => makeTool(`${String.fromCharCode(97 + (i % 26))}${i}_deferred`))
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(fc.nat({ max: 59 }), { maxLength: 6 }), { minLength: 1, maxLength: 6 }), (rounds) =>
        Effect.runPromise(Effect.scoped(Effect.gen(function*() {
          const registry = yield* Registry.make()
          for (const t of [...visible, ...deferred]) yield* registry.register(t)
          const revealed = new Set<string>()
          for (const picks of rounds) {
            const names = picks.map((p) => deferred[p]!.name)
            yield* registry.reveal(names)
            for (const name of names) revealed.add(name)
            const expected = sortTools([...visible, ...deferred.filter((t) => revealed.has(t.name))]).map((t) => t.name)
            assert.deepStrictEqual((yield* registry.declarations).map((t) => t.name), expected)
          }
        })))
      ),
      { seed: SEED, numRuns: 40 }
    )
  })

  it.effect("a revealed tool whose name and display name collate equal to a visible one comes after it", () =>
    Effect.gen(function*() {
      const composed = "caf\u00e9"
      const decomposed = "cafe\u0301"
      assert.strictEqual(composed.localeCompare(decomposed), 0)
      const registry = yield* Registry.make()
      yield* registry.register(makeTool(decomposed, { displayName: "Cafe" }))
      yield* registry.register(makeTool(composed, { deferred: false, displayName: "Cafe" }))
      yield* registry.register(makeTool("zeta", { deferred: false }))
      yield* registry.register(makeTool("alpha", { deferred: false }))
      yield* registry.reveal([decomposed])
      assert.deepStrictEqual((yield* registry.declarations).map((t) => t.name), ["alpha", composed, decomposed, "zeta"])
    }))
})
