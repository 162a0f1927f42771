import { assert, describe, it } from "@effect/vitest"
import { PDFDocument } from "pdf-lib"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import iconv from "iconv-lite"
import { Effect, Option } from "effect"
import { DEFAULT_OUTPUT_LIMITS, CurrentOutputLimits } from "../../src/output/config.js"
import { inodeKey } from "../../src/session/readCache.js"
import { fileWorld, textOf } from "./helpers.js"

const lines = (n: number, prefix = "Line ") => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`).join("\n")

const PNG_1x1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64"
)

const tinyPdf = (pages: number) => {
  const kids = Array.from({ length: pages }, (_, i) => `${4 + i} 0 R`).join(" ")
  const objects = [
    "1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj",
    `2 0 obj << /Type /Pages /Kids [${kids}] /Count ${pages} >> endobj`,
    ...Array.from({ length: pages }, (_, i) => `${4 + i} 0 obj << /Type /Page /Parent 2 0 R >> endobj`)
  ]
  return Buffer.from(`%PDF-1.4\n${objects.join("\n")}\ntrailer << /Root 1 0 R >>\n%%EOF\n`, "latin1")
}

describe("read_file: reference §5 vectors", () => {
  it.effect("an empty file reads as empty content and empty display", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("empty.txt", "")
      const r = yield* w.read.call({ file_path: file })
      assert.strictEqual(textOf(r), "")
      assert.strictEqual(r.display, "")
    }))

  it.effect("offset 5, limit 3 on a 20-line file shows lines 6-8 with the header", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("paginated.txt", lines(20))
      const r = yield* w.read.call({ file_path: file, offset: 5, limit: 3 })
      const t = textOf(r)
      assert.isTrue(t.startsWith("Showing lines 6-8 of 20 total lines.\n\n---\n\nLine 6\nLine 7\nLine 8"))
      assert.notInclude(t, "Line 5\n")
      assert.notInclude(t, "Line 9\n")
      assert.include(t, "To read on, call read_file with offset: 8.")
      assert.strictEqual(r.display, "Read lines 6-8 of 20 from paginated.txt")
      assert.deepStrictEqual(r.data.lines, { start: 6, end: 8, total: 20, totalKnown: true })
    }))

  it.effect("a second full read of an unchanged file gets the placeholder; after history eviction, the content again", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("a.txt", "alpha\nbeta\n")
      const first = yield* w.read.call({ file_path: file })
      assert.strictEqual(textOf(first), "alpha\nbeta")
      const second = yield* w.read.call({ file_path: file })
      assert.strictEqual(
        textOf(second),
        "[File a.txt unchanged since last read in this session — the full content was provided earlier in this conversation. If you cannot retrieve that prior content (e.g. after context compaction) or you suspect the file was modified outside the read/edit tools (shell command, MCP tool, another process), re-read with explicit offset/limit to fetch current content.]"
      )
      assert.strictEqual(second.display, "Unchanged: a.txt")
      yield* w.cache.markReadEvictedFromHistory(fs.statSync(file))
      const third = yield* w.read.call({ file_path: file })
      assert.strictEqual(textOf(third), "alpha\nbeta")
      // an explicit window always returns content
      const paged = yield* w.read.call({ file_path: file, offset: 0, limit: 10 })
      assert.strictEqual(textOf(paged), "alpha\nbeta")
    }))

  it.effect("a partial read is never served the placeholder, and a change after the read returns content", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("b.txt", lines(3))
      yield* w.read.call({ file_path: file, limit: 2 })
      assert.include(textOf(yield* w.read.call({ file_path: file })), "Line 3")
      fs.writeFileSync(file, "changed content\n")
      assert.strictEqual(textOf(yield* w.read.call({ file_path: file })), "changed content")
    }))
})

describe("read_file: paging limits at their edges", () => {
  it.effect("1000 lines fit the default window; 1001 do not", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const exact = yield* w.read.call({ file_path: w.file("1000.txt", lines(1000, "")) })
      assert.isFalse(exact.data.truncated)
      const over = yield* w.read.call({ file_path: w.file("1001.txt", lines(1001, "")) })
      assert.isTrue(textOf(over).startsWith("Showing lines 1-1000 of 1001 total lines."))
      assert.include(textOf(over), "To read on, call read_file with offset: 1000.")
    }))

  it.effect("25000 characters fit; one more cuts the overflowing line with the marker", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const body = Array.from({ length: 249 }, () => "x".repeat(99)).join("\n") // 249*99 + 248 = 24899 chars
      const fits = yield* w.read.call({ file_path: w.file("fits.txt", `${body}\n${"y".repeat(100)}`) })
      assert.isFalse(fits.data.truncated, "exactly 25000 chars")
      const cut = yield* w.read.call({ file_path: w.file("cut.txt", `${body}\n${"y".repeat(101)}\nlast`) })
      const t = textOf(cut)
      assert.isTrue(t.startsWith("Showing lines 1-250 of 251 total lines."))
      assert.include(t, `\n${"y".repeat(100)}... [truncated]`)
      assert.notInclude(t, "y".repeat(101))
      assert.strictEqual(cut.display, "Read lines 1-250 of 251 from cut.txt (truncated)")
    }))

  it.effect("a single very long line is cut to the budget; the configured limits apply", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("long.txt", "a".repeat(500) + "\nsecond\n")
      const r = yield* w.read.call({ file_path: file }).pipe(
        Effect.provideService(CurrentOutputLimits, { ...DEFAULT_OUTPUT_LIMITS, truncateChars: 100, truncateLines: 5 })
      )
      assert.include(textOf(r), `\n\n${"a".repeat(100)}... [truncated]`)
      assert.notInclude(textOf(r), "second")
      const min = yield* w.read.call({ file_path: file, offset: 1 }).pipe(
        Effect.provideService(CurrentOutputLimits, { ...DEFAULT_OUTPUT_LIMITS, truncateChars: 3 })
      )
      assert.include(textOf(min), "\n\nsecond... [truncated]", "a cut keeps at least 10 chars (here all 6)")
    }))

  it.effect("trailing whitespace is trimmed from each shown line, CRLF included", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const r = yield* w.read.call({ file_path: w.file("ws.txt", "a  \r\nb\t\r\n") })
      assert.strictEqual(textOf(r), "a\nb")
    }))

  it.effect("an offset past the end is refused with the line count", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const e = yield* Effect.flip(w.read.call({ file_path: w.file("short.txt", lines(3)), offset: 3 }))
      assert.strictEqual(e.code, "invalid_tool_params")
      assert.include(e.message, "which has 3 lines")
    }))

  it.effect("a file of 10 MB and more is streamed: the window is exact, the total a lower bound until the end is reached", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const row = "0123456789".repeat(10) // 100 chars
      const count = 110_000
      const file = w.file("big.log", Array.from({ length: count }, (_, i) => `${i}:${row}`).join("\n") + "\ntail-without-newline")
      assert.isAtLeast(fs.statSync(file).size, 10 * 1024 * 1024)
      const r = yield* w.read.call({ file_path: file, offset: 100_000, limit: 2 })
      const t = textOf(r)
      assert.match(t, /^Showing lines 100001-100002 of at least \d+ total lines\.\n/)
      assert.include(t, `100000:${row}\n100001:${row}`)
      assert.include(t, `[More lines follow in this ${fs.statSync(file).size}-byte file (lines past the page are not counted in files of 10 MB or more). To read on, call read_file with offset: 100002.]`)
      assert.isFalse(r.data.lines?.totalKnown)
      assert.isAbove(r.data.lines?.total ?? 0, 100_002)
      assert.isAtMost(r.data.lines?.total ?? Infinity, count + 1)
      const last = yield* w.read.call({ file_path: file, offset: count })
      assert.include(textOf(last), "tail-without-newline")
      assert.deepStrictEqual(last.data.lines, { start: count + 1, end: count + 1, total: count + 1, totalKnown: true })
    }))
})

describe("read_file: kinds of file", () => {
  it.effect("legacy encodings are decoded (GBK) and UTF-16 with BOM too", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const gbk = yield* w.read.call({ file_path: w.file("gbk.txt", iconv.encode("你好，世界\n第二行\n", "gbk")) })
      assert.strictEqual(textOf(gbk), "你好，世界\n第二行")
      assert.strictEqual(gbk.data.encoding, "gbk")
      const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode("wide\r\ntext\r\n", "utf-16le")])
      assert.strictEqual(textOf(yield* w.read.call({ file_path: w.file("u16.txt", utf16) })), "wide\ntext")
    }))

  it.effect("a binary file is skipped, not an error, and does not count as a text read", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("data.bin.x", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02]))
      const r = yield* w.read.call({ file_path: file })
      assert.strictEqual(textOf(r), "Cannot display content of binary file: data.bin.x")
      assert.strictEqual(r.display, "Skipped binary file: data.bin.x")
      const entry = yield* w.cache.get(inodeKey(fs.statSync(file)))
      assert.isFalse(Option.getOrThrow(entry).lastReadCacheable)
    }))

  it.effect("an image comes back as an image part", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const r = yield* w.read.call({ file_path: w.file("pic.png", PNG_1x1) })
      const image = r.llmContent.find((p) => p.type === "image")
      assert.deepStrictEqual(image, { type: "image", data: PNG_1x1.toString("base64"), mimeType: "image/png" })
      assert.strictEqual(r.display, "Read image file: pic.png")
    }))

  it.effect("media over 9.9 MB → file_too_large", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("huge.png", "")
      fs.truncateSync(file, Math.floor(9.9 * 1024 * 1024) + 1)
      const e = yield* Effect.flip(w.read.call({ file_path: file }))
      assert.strictEqual(e.code, "file_too_large")
      assert.strictEqual(e.message, "File size exceeds the 10MB limit.")
      fs.truncateSync(file, Math.floor(9.9 * 1024 * 1024))
      const ok = yield* w.read.call({ file_path: file })
      assert.strictEqual(ok.data.kind, "media")
    }))

  it.effect("a PDF is embedded whole; pages attaches only those pages; a range past the end is refused", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("doc.pdf", tinyPdf(3))
      const r = yield* w.read.call({ file_path: file })
      assert.strictEqual(r.llmContent[1]?.type, "file")
      assert.include(textOf(r), "(3 pages)")
      // a real document: three pages of widths 100, 200 and 300 points
      const source = yield* Effect.promise(async () => {
        const doc = await PDFDocument.create()
        for (const width of [100, 200, 300]) doc.addPage([width, 500])
        return doc.save()
      })
      const real = w.file("real.pdf", Buffer.from(source))
      const ranged = yield* w.read.call({ file_path: real, pages: "2-3" })
      assert.include(textOf(ranged), "pages 2-3, extracted as a document of 2 pages")
      const attached = ranged.llmContent[1]
      assert.strictEqual(attached?.type, "file")
      const widths = yield* Effect.promise(async () => {
        const doc = await PDFDocument.load(Buffer.from(attached?.type === "file" ? attached.data : "", "base64"))
        return doc.getPages().map((page) => page.getWidth())
      })
      assert.deepStrictEqual(widths, [200, 300])
      assert.isBelow(Buffer.from(attached?.type === "file" ? attached.data : "", "base64").length, source.length)
      const beyond = yield* Effect.flip(w.read.call({ file_path: real, pages: "3-4" }))
      assert.strictEqual(beyond.code, "invalid_tool_params")
      assert.include(beyond.message, "which has 3 pages")
    }))

  it.effect("pages of a PDF pdf-lib cannot parse: read_content_failure, read it whole instead", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("broken.pdf", Buffer.from("%PDF-1.7\n" + "garbage ".repeat(50), "latin1"))
      const error = yield* Effect.flip(w.read.call({ file_path: file, pages: "1" }))
      assert.strictEqual(error.code, "read_content_failure")
      assert.include(error.message, "Read it without pages")
    }))

  it.effect("PDF size limits: over 100 MB needs pages; over 512 MB is refused even with pages", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("big.pdf", tinyPdf(1))
      fs.truncateSync(file, 100 * 1024 * 1024 + 1)
      const whole = yield* Effect.flip(w.read.call({ file_path: file }))
      assert.strictEqual(whole.code, "file_too_large")
      fs.truncateSync(file, 512 * 1024 * 1024 + 1)
      const paged = yield* Effect.flip(w.read.call({ file_path: file, pages: "1" }))
      assert.strictEqual(paged.code, "file_too_large")
      assert.strictEqual(paged.message, "File size exceeds the 512MB limit for PDF files.")
    }))

  it.effect("pages validation messages (reference §5.2)", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("p.pdf", tinyPdf(1))
      const msg = (pages: string) => Effect.map(Effect.flip(w.read.call({ file_path: file, pages })), (e) => e.message)
      assert.strictEqual(yield* msg("abc"), "Invalid pages parameter: 'abc'. Use formats like '5' or '1-10'.")
      assert.strictEqual(yield* msg("0"), "Invalid pages parameter: '0'. Use formats like '5' or '1-10'.")
      assert.strictEqual(yield* msg("5-2"), "Invalid pages parameter: '5-2'. Use formats like '5' or '1-10'.")
      assert.strictEqual(
        yield* msg("3-"),
        "Open-ended page ranges (e.g. '3-') are not supported; specify an explicit end page within the 20-page limit (e.g. '3-22')."
      )
      assert.strictEqual(yield* msg("1-21"), "Pages range exceeds maximum of 20 pages per request.")
      const ok = yield* w.read.call({ file_path: file, pages: "  " })
      assert.strictEqual(ok.data.kind, "pdf", "blank pages is unset")
      const notPdf = yield* Effect.flip(w.read.call({ file_path: w.file("t.txt", "x"), pages: "1" }))
      assert.include(notPdf.message, "pages applies only to PDF files")
    }))

  it.effect("SVG is text; over 1 MB it is described instead", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const svg = `<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>\n`
      const r = yield* w.read.call({ file_path: w.file("icon.svg", svg) })
      assert.strictEqual(textOf(r), svg.trimEnd())
      assert.strictEqual(r.display, "Read SVG as text: icon.svg")
      const big = yield* w.read.call({ file_path: w.file("big.svg", `<svg>${"x".repeat(1024 * 1024)}</svg>`) })
      assert.strictEqual(textOf(big), "Cannot display content of SVG file larger than 1MB: big.svg")
    }))

  it.effect("a notebook is rendered as cells with outputs and images, and recorded as a full non-text read", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const nb = {
        cells: [
          { cell_type: "markdown", id: "intro", metadata: {}, source: ["# Title\n", "Some text"] },
          {
            cell_type: "code",
            id: "calc",
            execution_count: 3,
            metadata: {},
            source: "print(6 * 7)",
            outputs: [
              { output_type: "stream", name: "stdout", text: ["42\n"] },
              { output_type: "display_data", data: { "image/png": PNG_1x1.toString("base64"), "text/plain": ["<Figure>"] }, metadata: {} },
              { output_type: "error", ename: "ZeroDivisionError", evalue: "division by zero", traceback: ["\u001b[31mTraceback\u001b[0m"] }
            ]
          }
        ],
        metadata: { language_info: { name: "python" } },
        nbformat: 4,
        nbformat_minor: 5
      }
      const file = w.file("nb.ipynb", JSON.stringify(nb, null, 1) + "\n")
      const r = yield* w.read.call({ file_path: file })
      const t = textOf(r)
      assert.include(t, "Notebook nb.ipynb (nbformat 4.5, python, 2 cells)")
      assert.include(t, `<cell id="intro" cell_type="markdown">\n# Title\nSome text\n</cell>`)
      assert.include(t, `<cell id="calc" cell_type="code" execution_count="3">\nprint(6 * 7)\n</cell>`)
      assert.include(t, "[stream stdout]\n42")
      assert.include(t, "[error] ZeroDivisionError: division by zero\nTraceback")
      assert.strictEqual(r.llmContent.filter((p) => p.type === "image").length, 1)
      assert.strictEqual(r.display, "Read notebook: nb.ipynb")
      const entry = Option.getOrThrow(yield* w.cache.get(inodeKey(fs.statSync(file))))
      assert.isTrue(entry.lastReadWasFull)
      assert.isFalse(entry.lastReadCacheable)
    }))

  it.effect("a notebook whose cells exceed the budget is truncated at a cell boundary", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const cells = Array.from({ length: 10 }, (_, i) => ({ cell_type: "code", metadata: {}, source: `x${i} = '${"y".repeat(50)}'`, outputs: [], execution_count: null }))
      const file = w.file("many.ipynb", JSON.stringify({ cells, metadata: {}, nbformat: 4, nbformat_minor: 4 }))
      const r = yield* w.read.call({ file_path: file }).pipe(
        Effect.provideService(CurrentOutputLimits, { ...DEFAULT_OUTPUT_LIMITS, truncateChars: 400 })
      )
      assert.include(textOf(r), "[remaining cells truncated:")
      assert.include(textOf(r), `<cell id="cell-0"`)
      const entry = Option.getOrThrow(yield* w.cache.get(inodeKey(fs.statSync(file))))
      assert.isFalse(entry.lastReadWasFull)
    }))

  it.effect("notebook validation messages (reference §5.2)", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("n.ipynb", "{}")
      const e1 = yield* Effect.flip(w.read.call({ file_path: file, offset: 1 }))
      assert.strictEqual(
        e1.message,
        "offset and limit are not supported for Jupyter notebook (.ipynb) files. Notebooks are always read in full with structured cell output."
      )
      const e2 = yield* Effect.flip(w.read.call({ file_path: file, pages: "1" }))
      assert.isTrue(e2.message.startsWith("pages is not supported for Jupyter notebook (.ipynb) files."))
      const raw = yield* w.read.call({ file_path: w.file("broken.ipynb", "{not json") })
      assert.include(textOf(raw), "is not a readable notebook")
    }))
})

describe("read_file: every error code", () => {
  it.effect("file_not_found", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const e = yield* Effect.flip(w.read.call({ file_path: path.join(w.root, "missing.txt") }))
      assert.strictEqual(e.code, "file_not_found")
      assert.strictEqual(e.message, "Could not read file because no file was found at the specified path.")
      assert.strictEqual(e.display, "File not found.")
    }))

  it.effect("target_is_directory", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      fs.mkdirSync(path.join(w.root, "dir"))
      const e = yield* Effect.flip(w.read.call({ file_path: "dir" }))
      assert.strictEqual(e.code, "target_is_directory")
      assert.strictEqual(e.message, "Could not read file because the provided path is a directory, not a file.")
    }))

  it.effect("read_content_failure for a FIFO", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const fifo = path.join(w.root, "pipe")
      execFileSync("mkfifo", [fifo])
      const e = yield* Effect.flip(w.read.call({ file_path: fifo }))
      assert.strictEqual(e.code, "read_content_failure")
      assert.strictEqual(e.message, "Cannot read file: pipe is not a regular file (e.g. device, socket, or pipe).")
    }))

  it.effect("path_not_in_workspace, but the session output dir is readable", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const e = yield* Effect.flip(w.read.call({ file_path: "/etc/hostname" }))
      assert.strictEqual(e.code, "path_not_in_workspace")
      const saved = path.join(w.state, "outputs", "shell_0123.output")
      fs.writeFileSync(saved, "saved output\n")
      assert.strictEqual(textOf(yield* w.read.call({ file_path: saved })), "saved output")
    }))

  it.effect("invalid_tool_params: offset, limit, empty path (reference messages)", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("v.txt", "x")
      assert.strictEqual((yield* Effect.flip(w.read.call({ file_path: file, offset: -1 }))).message, "params.offset: Offset must be a non-negative integer")
      assert.strictEqual((yield* Effect.flip(w.read.call({ file_path: file, limit: 0 }))).message, "params.limit: Limit must be a positive integer")
      assert.strictEqual((yield* Effect.flip(w.read.call({ file_path: "  " }))).message, "The 'file_path' parameter must be non-empty.")
    }))
})

describe("read_file: the read cache", () => {
  it.effect("records a full text read as full and cacheable, a window as partial", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("c.txt", lines(10))
      yield* w.read.call({ file_path: file, offset: 2, limit: 3 })
      const partial = Option.getOrThrow(yield* w.cache.get(inodeKey(fs.statSync(file))))
      assert.isFalse(partial.lastReadWasFull)
      assert.isTrue(partial.lastReadCacheable)
      yield* w.read.call({ file_path: file })
      assert.isTrue(Option.getOrThrow(yield* w.cache.get(inodeKey(fs.statSync(file)))).lastReadWasFull)
    }))

  it.effect("with readEvidence ranges it records the lines shown (a cut line is not counted)", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld({ readEvidence: "ranges" })
      const file = w.file("r.txt", lines(50))
      yield* w.read.call({ file_path: file, offset: 9, limit: 5 })
      const key = inodeKey(fs.statSync(file))
      assert.isTrue(yield* w.cache.hasSeenLines(key, 10, 14))
      assert.isFalse(yield* w.cache.hasSeenLines(key, 9, 14))
      assert.isFalse(yield* w.cache.hasSeenLines(key, 10, 15))
      yield* w.read.call({ file_path: file, offset: 20, limit: 5 }).pipe(
        Effect.provideService(CurrentOutputLimits, { ...DEFAULT_OUTPUT_LIMITS, truncateChars: 20 })
      )
      assert.isTrue(yield* w.cache.hasSeenLines(key, 21, 22))
      assert.isFalse(yield* w.cache.hasSeenLines(key, 23, 23))
    }))
})
