import { Worker } from "node:worker_threads"
const chunk = (i) => `<div class="c${i%7}"><section><p>Paragraph ${i} with <a href="/l/${i}">a link</a> and <code>code()</code> words.</p><ul><li>item ${i}</li><li>item b</li></ul></section></div>\n`
const page = (bytes) => { const parts = []; let n = 0; for (let i = 0; n < bytes; i++) { const c = chunk(i); parts.push(c); n += c.length } return `<!doctype html><html><body>${parts.join("")}</body></html>` }
const w = new Worker(new URL("./src/web/htmlWorker.mjs", import.meta.url), { stdout: true, resourceLimits: { maxOldGenerationSizeMb: Number(process.argv[3]) } })
w.stdout.resume()
const t = performance.now()
w.on("message", (m) => { console.log("msg", JSON.stringify(m).slice(0, 150), Math.round(performance.now()-t)); if (m.ready) w.postMessage(page(Number(process.argv[2]))); else w.terminate() })
w.on("error", (e) => console.log("error", e.code, e.message, Math.round(performance.now()-t)))
w.on("exit", (c) => console.log("exit", c, Math.round(performance.now()-t)))
