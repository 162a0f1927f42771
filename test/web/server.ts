/**
 * A real HTTP server on 127.0.0.1 for the web_fetch tests, closed with the test's scope. Its routes
 * cover every outcome of a fetch; `hits` counts the requests that reached it (a refused fetch must
 * leave it at 0).
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

/** A running test server. */
export interface TestServer {
  readonly port: number
  readonly base: string
  readonly hits: () => number
  readonly userAgents: () => ReadonlyArray<string>
}

/** The HTML page served at /page.html. */
export const PAGE_HTML = `<!doctype html><html><head><title>Install</title><style>body{color:red}</style>
<script>window.secret = "not for the model"</script></head>
<body><h1>Install guide</h1><p>Run <code>npm install toolwright</code> and then <a href="/next">read on</a>.</p>
<ul><li>one</li><li>two</li></ul></body></html>`

const flatChunk = (i: number) =>
  `<div class="c${i % 7}"><section><p>Paragraph ${i} with <a href="/l/${i}">a link</a> and <code>code()</code> words.</p>` +
  `<ul><li>item ${i}</li><li>item b</li></ul></section></div>\n`

/** An HTML page of about `bytes` bytes of short sections one after another (turndown's linear case). */
export const flatPage = (bytes: number): string => {
  const parts: Array<string> = []
  for (let i = 0, n = 0; n < bytes; i++) {
    const part = flatChunk(i)
    parts.push(part)
    n += part.length
  }
  return `<!doctype html><html><body>${parts.join("")}</body></html>`
}

/** `depth` nested divs: turndown's time grows with the square of the depth (100 000 take minutes). */
export const nestedPage = (depth: number): string =>
  `<!doctype html><html><body>${"<div>".repeat(depth)}deep${"</div>".repeat(depth)}</body></html>`

const LONG_PARAGRAPH = "<p>" + "All work and no play makes Jack a dull boy. ".repeat(40) + "</p>\n"

/** Starts the server; `routes` may add or replace handlers by path. */
export const startServer = (
  routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse, port: number) => void> = {}
): Effect.Effect<TestServer, never, import("effect/Scope").Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ readonly server: http.Server; readonly state: { hits: number; agents: Array<string> } }>((resume) => {
      const state = { hits: 0, agents: [] as Array<string> }
      const server = http.createServer((req, res) => {
        state.hits++
        state.agents.push(String(req.headers["user-agent"]))
        const port = (server.address() as AddressInfo).port
        const url = new URL(req.url ?? "/", `http://127.0.0.1:${port}`)
        const custom = routes[url.pathname]
        if (custom) return custom(req, res, port)
        const send = (status: number, type: string | undefined, body: string | Buffer, headers: Record<string, string> = {}) => {
          res.writeHead(status, { ...(type ? { "content-type": type } : {}), ...headers })
          res.end(body)
        }
        switch (url.pathname) {
          case "/page.html":
            return send(200, "text/html; charset=utf-8", PAGE_HTML)
          case "/data.json":
            return send(200, "application/json", JSON.stringify({ name: "toolwright", tools: 17 }))
          case "/notes.txt":
            return send(200, "text/plain; charset=iso-8859-1", Buffer.from("caf\xe9 cr\xe8me\n", "latin1"))
          case "/untyped-text":
            return send(200, undefined, "no content type, plain words\n")
          case "/untyped-binary":
            return send(200, undefined, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x01]))
          case "/image.png":
            return send(200, "image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
          case "/big":
            return send(200, "text/plain", "x".repeat(4096), { "content-length": "4096" })
          case "/big-chunked": {
            res.writeHead(200, { "content-type": "text/plain" })
            for (let i = 0; i < 8; i++) res.write("y".repeat(1024))
            return res.end()
          }
          case "/long.html":
            return send(200, "text/html", `<html><body><h1>Long</h1>${LONG_PARAGRAPH.repeat(60)}<p>THE END</p></body></html>`)
          case "/large.html":
            return send(200, "text/html", flatPage(Number(url.searchParams.get("bytes") ?? "100000")))
          case "/nested.html":
            return send(200, "text/html", nestedPage(Number(url.searchParams.get("depth") ?? "100000")))
          case "/slow":
            return // never answers; the fetch times out
          case "/missing":
            return send(404, "text/plain", "No such page here")
          case "/redirect":
            return send(302, "text/plain", "", { location: "/page.html" })
          case "/hop": {
            const n = Number(url.searchParams.get("n") ?? "0")
            return send(301, undefined, "", { location: n > 0 ? `/hop?n=${n - 1}` : "/data.json" })
          }
          case "/loop":
            return send(307, undefined, "", { location: "/loop" })
          case "/to-metadata":
            return send(302, undefined, "", { location: "http://169.254.169.254/latest/meta-data/" })
          case "/to-ftp":
            return send(302, undefined, "", { location: "ftp://example.com/file" })
          default:
            return send(404, "text/plain", "unknown route")
        }
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, state })))
    }),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ server, state }) => {
    const port = (server.address() as AddressInfo).port
    return { port, base: `http://127.0.0.1:${port}`, hits: () => state.hits, userAgents: () => state.agents }
  }))
