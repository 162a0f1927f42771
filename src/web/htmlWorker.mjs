// The HTML → Markdown converter of `web_fetch`, run in a worker thread (see ./converter.ts) so a
// large page never holds the server's event loop. Plain JavaScript, importing nothing of ours: Node
// runs this very file from src/ (tests), dist/web/ (the library) and dist/bundle/ (the CLI, where
// the build bundles turndown into it), and Node 20 cannot run TypeScript.
//
// Protocol: the parent sends one HTML string at a time; the worker answers `{ markdown }` or
// `{ error }` (turndown threw, e.g. a nesting too deep for its recursion). A worker that runs out of
// heap or is terminated for its time cap is replaced by the parent, never reused.
import { parentPort } from "node:worker_threads"
import TurndownService from "turndown"

// Elements that carry no reading text.
const REMOVED = ["script", "style", "noscript", "template", "iframe", "object", "embed", "canvas", "svg"]

const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "*" })
service.remove(REMOVED)

/** HTML → Markdown, runs of blank lines collapsed. */
const htmlToMarkdown = (html) => service.turndown(html).replace(/\n{3,}/g, "\n\n").trim()

if (parentPort !== null) {
  const port = parentPort
  port.on("message", (html) => {
    let answer
    try {
      answer = { markdown: htmlToMarkdown(String(html)) }
    } catch (error) {
      answer = { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }
    }
    port.postMessage(answer)
  })
  port.postMessage({ ready: true })
}
