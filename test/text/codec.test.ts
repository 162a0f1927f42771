import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import iconv from "iconv-lite"
import {
  decodeAs,
  decodeText,
  describeFormat,
  detectBom,
  detectLegacyEncoding,
  detectLineEnding,
  detectUtf16WithoutBom,
  encodeText,
  findUnrepresentable,
  fromLf,
  NEW_FILE_FORMAT,
  toLf
} from "../../src/text/codec.js"

const bytes = (...values: Array<number>) => Uint8Array.from(values)
const same = (a: Uint8Array, b: Uint8Array) => assert.strictEqual(Buffer.compare(Buffer.from(a), Buffer.from(b)), 0)

describe("codec: detection", () => {
  it("detects every BOM and its length", () => {
    assert.deepStrictEqual(detectBom(bytes(0xef, 0xbb, 0xbf, 0x41)), { encoding: "utf-8", length: 3 })
    assert.deepStrictEqual(detectBom(bytes(0xff, 0xfe, 0x41, 0x00)), { encoding: "utf-16le", length: 2 })
    assert.deepStrictEqual(detectBom(bytes(0xfe, 0xff, 0x00, 0x41)), { encoding: "utf-16be", length: 2 })
    assert.deepStrictEqual(detectBom(bytes(0xff, 0xfe, 0x00, 0x00)), { encoding: "utf-32le", length: 4 })
    assert.deepStrictEqual(detectBom(bytes(0x00, 0x00, 0xfe, 0xff)), { encoding: "utf-32be", length: 4 })
    assert.isUndefined(detectBom(bytes(0x41, 0x42)))
  })

  it("recognises UTF-16 without BOM by its zero bytes, and not a plain binary", () => {
    assert.strictEqual(detectUtf16WithoutBom(iconv.encode("hello world\n", "utf-16le")), "utf-16le")
    assert.strictEqual(detectUtf16WithoutBom(iconv.encode("hello world\n", "utf-16be")), "utf-16be")
    assert.isUndefined(detectUtf16WithoutBom(Buffer.from("hello world\n")))
    assert.isUndefined(detectUtf16WithoutBom(bytes(0, 0, 0, 0, 1, 2)))
  })

  it("detects line endings: lf, crlf, mixed", () => {
    assert.strictEqual(detectLineEnding("a\nb\n"), "lf")
    assert.strictEqual(detectLineEnding("a\r\nb\r\n"), "crlf")
    assert.strictEqual(detectLineEnding("a\r\nb\n"), "mixed")
    assert.strictEqual(detectLineEnding("no break"), "lf")
  })

  it("tells the CJK legacy encodings apart on real text", () => {
    assert.strictEqual(detectLegacyEncoding(iconv.encode("这是一个中文文件，用来测试编码检测。你好，世界！", "gbk")), "gbk")
    assert.strictEqual(detectLegacyEncoding(iconv.encode("這是一個繁體中文檔案，用來測試編碼偵測。", "big5")), "big5")
    assert.strictEqual(detectLegacyEncoding(iconv.encode("これは日本語のファイルです。文字コードを判定します。", "shift_jis")), "shift_jis")
    assert.strictEqual(detectLegacyEncoding(iconv.encode("이것은 한국어 파일입니다. 인코딩을 감지합니다.", "euc-kr")), "euc-kr")
    assert.strictEqual(detectLegacyEncoding(iconv.encode("Café crème, naïve façade — déjà vu.", "windows-1252")), "windows-1252")
  })
})

describe("codec: round trips keep every byte", () => {
  const cases: ReadonlyArray<{ name: string; raw: Uint8Array; encoding: string; bom: boolean; lineEnding: string; text: string }> = [
    {
      name: "UTF-8 with BOM",
      raw: Buffer.concat([bytes(0xef, 0xbb, 0xbf), Buffer.from("const a = 'é';\n")]),
      encoding: "utf-8",
      bom: true,
      lineEnding: "lf",
      text: "const a = 'é';\n"
    },
    {
      name: "UTF-16LE with BOM",
      raw: Buffer.concat([bytes(0xff, 0xfe), iconv.encode("héllo\r\nwörld\r\n", "utf-16le")]),
      encoding: "utf-16le",
      bom: true,
      lineEnding: "crlf",
      text: "héllo\nwörld\n"
    },
    {
      name: "UTF-16BE with BOM",
      raw: Buffer.concat([bytes(0xfe, 0xff), iconv.encode("x = 1\n", "utf-16be")]),
      encoding: "utf-16be",
      bom: true,
      lineEnding: "lf",
      text: "x = 1\n"
    },
    {
      name: "CRLF",
      raw: Buffer.from("one\r\ntwo\r\n"),
      encoding: "utf-8",
      bom: false,
      lineEnding: "crlf",
      text: "one\ntwo\n"
    },
    {
      name: "GBK",
      raw: iconv.encode("// 中文注释\nconst 名字 = \"张三\";\n", "gbk"),
      encoding: "gbk",
      bom: false,
      lineEnding: "lf",
      text: "// 中文注释\nconst 名字 = \"张三\";\n"
    }
  ]
  for (const c of cases) {
    it(`${c.name}: decodes to the text and encodes back to the same bytes`, () => {
      const decoded = decodeText(c.raw)
      assert.strictEqual(decoded.text, c.text)
      assert.strictEqual(decoded.format.encoding, c.encoding)
      assert.strictEqual(decoded.format.bom, c.bom)
      assert.strictEqual(decoded.format.lineEnding, c.lineEnding)
      same(encodeText(decoded.text, decoded.format), c.raw)
      assert.strictEqual(decodeAs(c.raw, decoded.format), c.text)
    })
  }

  it("mixed line endings are never normalised", () => {
    const raw = Buffer.from("a\r\nb\nc\r\n")
    const decoded = decodeText(raw)
    assert.strictEqual(decoded.format.lineEnding, "mixed")
    assert.strictEqual(decoded.text, "a\r\nb\nc\r\n")
    same(encodeText(decoded.text, decoded.format), raw)
  })

  it("a CR before CRLF survives (\\r\\r\\n)", () => {
    const raw = Buffer.from("a\r\r\nb\r\n")
    const decoded = decodeText(raw)
    assert.strictEqual(decoded.format.lineEnding, "crlf")
    same(encodeText(decoded.text, decoded.format), raw)
  })

  it("stray bytes in UTF-8 are carried as escapes and written back", () => {
    const raw = Buffer.concat([Buffer.from("héllo wörld ünïcödé "), bytes(0xff), Buffer.from(" ok ✓\n")])
    const decoded = decodeText(raw)
    assert.strictEqual(decoded.format.encoding, "utf-8")
    assert.isTrue(decoded.format.escapedBytes)
    assert.include(decoded.text, "héllo wörld")
    same(encodeText(decoded.text, decoded.format), raw)
    same(encodeText(decoded.text.replace("ok", "OK"), decoded.format), Buffer.concat([Buffer.from("héllo wörld ünïcödé "), bytes(0xff), Buffer.from(" OK ✓\n")]))
  })

  it("an odd-length UTF-16 body is not trusted and still round-trips", () => {
    const raw = bytes(0xff, 0xfe, 0x41, 0x00, 0x42)
    same(encodeText(decodeText(raw).text, decodeText(raw).format), raw)
  })

  it("property: decode → encode gives back any byte sequence exactly (seeded)", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          fc.string({ unit: "grapheme", maxLength: 80 }).map((s) => new Uint8Array(Buffer.from(s))),
          fc.tuple(fc.constantFrom("gbk", "big5", "shift_jis", "euc-kr", "utf-16le", "windows-1252"), fc.string({ maxLength: 60 }))
            .map(([enc, s]) => new Uint8Array(iconv.encode(s.replaceAll("\n", "\r\n"), enc))),
          fc.tuple(fc.constantFrom([0xef, 0xbb, 0xbf], [0xff, 0xfe], [0xfe, 0xff]), fc.uint8Array({ maxLength: 80 }))
            .map(([bom, rest]) => Uint8Array.from([...bom, ...rest]))
        ),
        (raw) => {
          const decoded = decodeText(raw)
          return Buffer.compare(Buffer.from(encodeText(decoded.text, decoded.format)), Buffer.from(raw)) === 0
        }
      ),
      { seed: 4242, numRuns: 600 }
    )
  })
})

describe("codec: writing", () => {
  it("new files are UTF-8 without BOM and keep what they are given", () => {
    same(encodeText("a\nb", NEW_FILE_FORMAT), Buffer.from("a\nb"))
    same(encodeText("a", { ...NEW_FILE_FORMAT, bom: true }), bytes(0xef, 0xbb, 0xbf, 0x61))
  })

  it("toLf / fromLf", () => {
    assert.strictEqual(toLf("a\r\nb\r\n"), "a\nb\n")
    assert.strictEqual(fromLf("a\nb\n", "crlf"), "a\r\nb\r\n")
    assert.strictEqual(fromLf("a\nb\n", "mixed"), "a\nb\n")
  })

  it("finds characters an encoding cannot represent", () => {
    assert.deepStrictEqual(findUnrepresentable("中文 😀", "gbk"), { char: "😀", codePoint: "U+1F600", index: 3 })
    assert.isUndefined(findUnrepresentable("中文", "gbk"))
    assert.isUndefined(findUnrepresentable("😀", "utf-16le"))
    assert.isUndefined(findUnrepresentable("😀", "gb18030"))
    assert.strictEqual(findUnrepresentable("naïve ✓", "windows-1252")?.codePoint, "U+2713")
  })

  it("describes formats for people", () => {
    assert.strictEqual(describeFormat(NEW_FILE_FORMAT), "UTF-8")
    assert.strictEqual(describeFormat({ encoding: "gbk", bom: false, lineEnding: "crlf", escapedBytes: false }), "GBK, CRLF")
    assert.strictEqual(describeFormat({ encoding: "utf-16le", bom: true, lineEnding: "lf", escapedBytes: false }), "UTF-16LE with BOM")
  })
})
