import { assert, describe, it } from "@effect/vitest"
import { findCellSpans, detectIndent } from "../../src/files/notebookJson.js"
import { displayPath, unescapePath } from "../../src/session/paths.js"
import { countPdfPages, parsePages } from "../../src/files/pdf.js"
import { fileKind, looksBinary } from "../../src/files/sniff.js"

describe("file tool helpers", () => {
  it("unescapePath removes shell escapes (reference §3.2), keeps doubled backslashes", () => {
    assert.strictEqual(unescapePath("  my\\ file.txt "), "my file.txt")
    assert.strictEqual(unescapePath("project\\ \\(v2\\)\\ \\&\\ more.txt"), "project (v2) & more.txt")
    assert.strictEqual(unescapePath("a\\\\b"), "a\\\\b")
    assert.strictEqual(unescapePath("plain/path.ts"), "plain/path.ts")
  })

  it("displayPath is relative inside the root, absolute outside", () => {
    assert.strictEqual(displayPath("/w", "/w/src/a.ts"), "src/a.ts")
    assert.strictEqual(displayPath("/w", "/w"), ".")
    assert.strictEqual(displayPath("/w", "/other/a.ts"), "/other/a.ts")
  })

  it("parsePages and countPdfPages", () => {
    assert.deepStrictEqual(parsePages(undefined), { _tag: "Unset" })
    assert.deepStrictEqual(parsePages(" 3 "), { _tag: "Range", range: { first: 3, last: 3 } })
    assert.deepStrictEqual(parsePages("1-20"), { _tag: "Range", range: { first: 1, last: 20 } })
    assert.strictEqual(parsePages("1-21")._tag, "Invalid")
    assert.strictEqual(countPdfPages(Buffer.from("<< /Type /Pages /Kids [] /Count 7 >> << /Type /Page >>")), 7)
    assert.strictEqual(countPdfPages(Buffer.from("<< /Type /Page >> << /Type /Page >>")), 2)
    assert.isUndefined(countPdfPages(Buffer.from("%PDF-1.7 compressed object streams")))
  })

  it("sniffing: binary by content, UTF-16 is text, kinds by extension", () => {
    assert.isTrue(looksBinary(Buffer.from([0x41, 0x00, 0x42])))
    assert.isFalse(looksBinary(Buffer.from([0xff, 0xfe, 0x41, 0x00])))
    assert.isFalse(looksBinary(Buffer.from("plain text\n")))
    assert.isTrue(looksBinary(Buffer.from([1, 2, 3, 4, 5, 65])))
    assert.deepStrictEqual(fileKind("a.PNG", Buffer.alloc(0)), { _tag: "media", part: "image", mimeType: "image/png" })
    assert.deepStrictEqual(fileKind("a.zip", Buffer.from("text")), { _tag: "binary" })
    assert.deepStrictEqual(fileKind("a.ts", Buffer.from("const x = 1")), { _tag: "text" })
  })

  it("notebook JSON: cell spans and indentation", () => {
    const text = `{\n  "cells": [\n    {"a": "]}"},\n    {"b": [1, {"c": 2}]}\n  ],\n  "nbformat": 4\n}\n`
    const spans = findCellSpans(text)!
    assert.deepStrictEqual(spans.cells.map(([s, e]) => text.slice(s, e)), [`{"a": "]}"}`, `{"b": [1, {"c": 2}]}`])
    assert.strictEqual(detectIndent(text), "  ")
    assert.isUndefined(detectIndent(`{"cells":[]}`))
    assert.isUndefined(findCellSpans("[1, 2]"))
  })
})
