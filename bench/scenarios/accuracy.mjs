// Edit accuracy (issue 19): cases cut from real files of installed packages (permissive licenses,
// pinned below by package version and path), perturbed by the toolwright/testing generators
// (seeded), run through the real `edit` tool by the library door (session + scheduler, a read
// first, as a model would), and judged by the landing oracle on the bytes the tool left.
// Per family: correct %, applied-wrong count, refused %. `npm run bench -- accuracy`.
import * as fs from "node:fs"
import * as path from "node:path"
import { distDir, repoRoot, tempDir } from "../lib.mjs"

/** The source texts: package, pinned version, license, path inside the package. */
export const SOURCES = [
  ["effect", "4.1.0", "MIT", "src/Data.ts"],
  ["effect", "4.1.0", "MIT", "src/Equal.ts"],
  ["effect", "4.1.0", "MIT", "README.md"],
  ["fast-glob", "3.3.3", "MIT", "README.md"],
  ["diff", "9.0.0", "BSD-3-Clause", "README.md"],
  ["iconv-lite", "0.7.3", "MIT", "README.md"],
  ["shell-quote", "1.12.0", "MIT", "parse.js"],
  ["turndown", "7.2.5", "MIT", "lib/turndown.cjs.js"],
  ["undici", "8.14.0", "MIT", "lib/web/fetch/response.js"],
  ["postcss", "8.5.34", "MIT", "lib/container.d.ts"],
  ["typescript", "5.9.3", "Apache-2.0", "lib/lib.es2015.promise.d.ts"],
  ["picomatch", "2.3.2", "MIT", "lib/parse.js"],
  ["zod", "4.6.7", "MIT", "README.md"]
]

export const SEED = 20261205
export const CASES_PER_FAMILY = 100

const loadSources = () =>
  SOURCES.map(([pkg, version, license, file]) => {
    const dir = path.join(repoRoot, "node_modules", pkg)
    const meta = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"))
    if (meta.version !== version) throw new Error(`accuracy: ${pkg} is ${meta.version}, the scenario pins ${version}; update SOURCES`)
    if (meta.license !== license) throw new Error(`accuracy: ${pkg} is licensed ${meta.license}, the scenario expects ${license}`)
    return fs.readFileSync(path.join(dir, file), "utf8")
  })

export const name = "accuracy: edit on perturbed real files"

export const run = async ({ smoke }) => {
  const fc = (await import("fast-check")).default
  const testing = await import(path.join(distDir, "testing", "index.js"))
  const tw = await import(path.join(distDir, "index.js"))
  const { Effect, Layer, ManagedRuntime } = await import("effect")
  const texts = loadSources()
  const root = tempDir()
  const state = tempDir()
  const layer = tw.SessionLayer.layer({ roots: [root], stateDir: state, mode: "yolo" }).pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })))
  const rt = ManagedRuntime.make(layer)
  const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
  let n = 0
  const call = (name, args) => rt.runPromise(scheduler.runOne({ callId: String(n++), name, args }))
  const perFamily = smoke ? 5 : CASES_PER_FAMILY
  const rows = []
  const t0 = performance.now()
  let total = 0
  for (const family of testing.FAMILIES) {
    const cases = fc.sample(testing.editCaseArb(family, { sources: texts }), { seed: SEED, numRuns: perFamily })
    const tally = { correct: 0, refused: 0, wrong: 0, mustRefuse: 0, wrongMustRefuse: 0 }
    const wrongKinds = new Map()
    for (const c of cases) {
      const file = path.join(root, `case-${total++}.txt`)
      const before = testing.beforeBytes(c)
      fs.writeFileSync(file, before)
      await call("read_file", { file_path: file })
      const out = await call("edit", { file_path: file, ...c.request })
      const after = new Uint8Array(fs.readFileSync(file))
      fs.rmSync(file)
      const unchanged = Buffer.from(after).equals(Buffer.from(before))
      const outcome = out._tag !== "Success" && unchanged ? testing.refused(out.code) : testing.applied(after)
      const landing = testing.expectLanding(c, outcome)
      if (c.intended._tag === "MustRefuse") tally.mustRefuse++
      if (landing.verdict === "applied-correct") tally.correct++
      else if (landing.verdict === "refused") tally.refused++
      else {
        tally.wrong++
        if (landing.hadToRefuse) tally.wrongMustRefuse++
        const kind = testing.caseKind(c)
        wrongKinds.set(kind, (wrongKinds.get(kind) ?? 0) + 1)
        if (process.env.ACCURACY_VERBOSE) console.error(testing.describeLanding(c, landing))
      }
    }
    const pct = (x) => (100 * x) / cases.length
    // As intended: applied correctly, or refused where refusing was the only right answer.
    const refusedRight = tally.mustRefuse - tally.wrongMustRefuse
    const asIntended = tally.correct + refusedRight
    const wrongList = [...wrongKinds].map(([k, v]) => `${k} ×${v}`).join(", ")
    rows.push({
      scenario: `accuracy: ${family}`,
      size: `${cases.length} cases`,
      ours: pct(asIntended),
      limit: 100,
      unit: "% as intended",
      limitName: tally.mustRefuse > 0 ? `intended after or refusal (${tally.mustRefuse} must refuse)` : "intended after",
      ratio: NaN,
      note: `applied-wrong ${tally.wrong}; applied correctly ${pct(tally.correct).toFixed(1)}%, refused ${pct(tally.refused).toFixed(1)}%` +
        (tally.mustRefuse > 0 ? ` (${tally.mustRefuse} had to be)` : "") + (wrongList ? `; wrong: ${wrongList}` : ""),
      accuracy: { family, cases: cases.length, ...tally, wrongKinds: Object.fromEntries(wrongKinds) }
    })
  }
  await rt.dispose()
  fs.rmSync(root, { recursive: true, force: true })
  fs.rmSync(state, { recursive: true, force: true })
  const all = rows.reduce((s, r) => ({
    cases: s.cases + r.accuracy.cases,
    wrong: s.wrong + r.accuracy.wrong,
    asIntended: s.asIntended + r.accuracy.correct + r.accuracy.mustRefuse - r.accuracy.wrongMustRefuse
  }), { cases: 0, wrong: 0, asIntended: 0 })
  rows.push({
    scenario: "accuracy: all families",
    size: `${all.cases} cases`,
    ours: all.wrong,
    limit: 0,
    unit: "applied-wrong",
    limitName: "zero wrong edits",
    ratio: NaN,
    note: `${(100 * all.asIntended / all.cases).toFixed(1)}% as intended; ${SOURCES.length} source files; seed ${SEED}; ${((performance.now() - t0) / 1000).toFixed(0)} s`
  })
  return rows
}
