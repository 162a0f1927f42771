import { createHash } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import {
  escapeStructuralTags,
  isAlreadyTruncated,
  NOTE_FILE_TOO_LARGE,
  NOTE_SESSION_BUDGET_EXHAUSTED,
  persistedOutputStub,
  persistedPreview,
  sha256Hex,
  utf8Bytes
} from "../../src/output/index.js"

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex")

describe("persistedPreview (§10.3)", () => {
  it("keeps content of at most 2 000 chars", () => {
    const content = "line\n".repeat(400)
    assert.strictEqual(content.length, 2000)
    assert.strictEqual(persistedPreview(content), content)
  })

  it("cuts longer content back to the last newline in the first 2 000 chars, then adds \\n...", () => {
    const content = "a".repeat(1500) + "\n" + "b".repeat(1000)
    assert.strictEqual(persistedPreview(content), "a".repeat(1500) + "\n...")
  })

  it("without a newline after position 0 keeps the first 2 000 chars", () => {
    assert.strictEqual(persistedPreview("c".repeat(5000)), "c".repeat(2000) + "\n...")
    assert.strictEqual(persistedPreview("\n" + "c".repeat(5000)), "\n" + "c".repeat(1999) + "\n...")
  })

  it("escapes persisted-output and system-reminder tags, opening and closing", () => {
    const text = "x <persisted-output> y </persisted-output> <system-reminder>z</system-reminder> <other>"
    assert.strictEqual(
      escapeStructuralTags(text),
      "x &lt;persisted-output&gt; y &lt;/persisted-output&gt; &lt;system-reminder&gt;z&lt;/system-reminder&gt; <other>"
    )
    assert.strictEqual(persistedPreview("<system-reminder>hi"), "&lt;system-reminder&gt;hi")
  })
})

describe("persistedOutputStub", () => {
  it("file variant: envelope, size, path, SHA-256 line, read_file paging hint, preview", () => {
    const content = "first\nsecond\n" + "z".repeat(3000)
    const stub = persistedOutputStub(content, { path: "/out/shell_0123456789abcdef.output" })
    assert.strictEqual(
      stub,
      `<persisted-output>
Output too large (3 KB). Full output saved to: /out/shell_0123456789abcdef.output
SHA-256: ${sha(content)}
Note: this file may be cleaned up after 24 hours.
To read the complete output, use the read_file tool with the absolute file path above.
Read it in pages with the offset and limit parameters of read_file (offset = first line, 0-based; limit = number of lines), e.g. offset=0 limit=1000, then offset=1000 limit=1000.

Preview (up to 2000 chars):
first
second
...
</persisted-output>`
    )
    assert.isTrue(isAlreadyTruncated(stub))
  })

  it("non-file variants carry the note, the digest and the preview", () => {
    const content = "é".repeat(1536)
    assert.strictEqual(utf8Bytes(content), 3072)
    assert.strictEqual(
      persistedOutputStub(content, { note: NOTE_FILE_TOO_LARGE }),
      `Output too large (3 KB). (file too large to persist)\nSHA-256: ${sha(content)}\n\nPreview (up to 2000 chars):\n${content}`
    )
    assert.strictEqual(
      persistedOutputStub("tiny", { note: NOTE_SESSION_BUDGET_EXHAUSTED }),
      `Output too large (0 KB). (session disk budget exhausted)\nSHA-256: ${sha("tiny")}\n\nPreview (up to 2000 chars):\ntiny`
    )
  })

  it("KB is round(bytes/1024) and precomputed bytes/digest are used as given", () => {
    const stub = persistedOutputStub("abc", { path: "/p" }, { bytes: 1536, sha256: "feed", previewChars: 2 })
    assert.include(stub, "Output too large (2 KB). Full output saved to: /p\nSHA-256: feed\n")
    assert.include(stub, "Preview (up to 2 chars):\nab\n...\n</persisted-output>")
    assert.strictEqual(sha256Hex("abc"), sha("abc"))
  })
})
