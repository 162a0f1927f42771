// web_fetch of a large HTML page: the call (fetch from 127.0.0.1 + HTML → Markdown in the worker
// pool) against turndown run on the main thread on the same HTML (how web_fetch converted before
// session 18), and the main event loop's delay during each (monitorEventLoopDelay, 10 ms
// resolution): with the worker, the loop keeps running while the page converts.
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { distDir, median, tempDir } from "../lib.mjs"

const chunk = (i) =>
  `<div class="c${i % 7}"><section><p>Paragraph ${i} with <a href="/l/${i}">a link</a> and <code>code()</code> words.</p>` +
  `<ul><li>item ${i}</li><li>item b</li></ul></section></div>\n`

const page = (bytes) => {
  const parts = []
  for (let i = 0, n = 0; n < bytes; i++) {
    parts.push(chunk(i))
    n += parts[parts.length - 1].length
  }
  return `<!doctype html><html><body>${parts.join("")}</body></html>`
}

/** Runs `fn` with the loop's delay recorded; returns { ms, maxMs, p99Ms }. */
const measured = async (fn) => {
  const loop = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()
  // let the histogram's timer start, so a block at once is recorded
  await new Promise((resolve) => setTimeout(resolve, 20))
  const t0 = performance.now()
  await fn()
  const ms = performance.now() - t0
  // one more turn, so a block that ends with `fn` is recorded
  await new Promise((resolve) => setTimeout(resolve, 20))
  loop.disable()
  return { ms, maxMs: loop.max / 1e6, p99Ms: loop.percentile(99) / 1e6 }
}

export const run = async ({ runs, smoke }) => {
  const tw = await import(path.join(distDir, "index.js"))
  const { Effect, Layer, ManagedRuntime } = await import("effect")
  const TurndownService = (await import("turndown")).default
  const sizes = smoke ? [64 * 1024] : [256 * 1024, 1024 * 1024]
  const rows = []
  const html = new Map(sizes.map((bytes) => [bytes, page(bytes)]))
  const server = http.createServer((req, res) => {
    const bytes = Number(new URL(req.url, "http://x").searchParams.get("bytes"))
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    res.end(html.get(bytes))
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  const base = `http://127.0.0.1:${server.address().port}`
  const root = tempDir("twbench-web-root-")
  const state = tempDir("twbench-web-state-")
  const rt = ManagedRuntime.make(
    tw.SessionLayer.layer({ roots: [root], stateDir: state, mode: "yolo", webFetch: { allow: ["127.0.0.1"], convertTimeoutMs: 600_000 } }).pipe(
      Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" }))
    )
  )
  const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
  try {
    for (const bytes of sizes) {
      const call = async (i) => {
        const r = await rt.runPromise(scheduler.runOne({ callId: `w${bytes}-${i}`, name: "web_fetch", args: { url: `${base}/p?bytes=${bytes}` } }))
        if (r._tag !== "Success") throw new Error(`web_fetch failed: ${r.code}: ${r.message}`)
      }
      const inline = () => {
        const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "*" })
        service.remove(["script", "style", "noscript", "template", "iframe", "object", "embed", "canvas", "svg"])
        service.turndown(html.get(bytes))
      }
      await call("warm") // the worker starts on the first conversion
      const worker = []
      const main = []
      for (let i = 0; i < runs; i++) {
        worker.push(await measured(() => call(i)))
        main.push(await measured(async () => inline()))
      }
      const pick = (xs, key) => median(xs.map((x) => x[key]))
      const size = `${bytes / 1024} KiB HTML`
      rows.push({
        scenario: "webFetch: HTML page to Markdown (worker)",
        size,
        ours: pick(worker, "ms"),
        limit: pick(main, "ms"),
        unit: "ms",
        limitName: "turndown on the main thread, same HTML (conversion only)",
        ratio: pick(worker, "ms") / pick(main, "ms"),
        note: "ours: the whole call (fetch from 127.0.0.1, conversion in the worker pool, output pipeline)"
      })
      rows.push({
        scenario: "webFetch: main-loop delay max during it",
        size,
        ours: pick(worker, "maxMs"),
        limit: pick(main, "maxMs"),
        unit: "ms",
        limitName: "turndown on the main thread (before session 18)",
        ratio: pick(worker, "maxMs") / pick(main, "maxMs"),
        note: `loop delay p99: worker ${pick(worker, "p99Ms").toFixed(1)} ms, main thread ${pick(main, "p99Ms").toFixed(1)} ms`
      })
    }
  } finally {
    await rt.dispose()
    server.close()
    fs.rmSync(root, { recursive: true, force: true })
    fs.rmSync(state, { recursive: true, force: true })
  }
  return rows
}
