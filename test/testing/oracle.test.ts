/**
 * The landing oracle on hand-made cases: each verdict, in text and in bytes, with the wrong span.
 */
import { assert, describe, it } from "@effect/vitest"
import iconv from "iconv-lite"
import {
  applied,
  assertNeverWrong,
  beforeBytes,
  describeLanding,
  type EditCase,
  expectLanding,
  intendedBytes,
  refused
} from "../../src/testing/index.js"

const change: EditCase = {
  family: "curly_quotes",
  variant: "straight_to_curly",
  encoding: "utf-8",
  before: "a = \"x\"\nb = \"x\"\n",
  request: { old_string: "b = \u201cx\u201d", new_string: "b = \"y\"" },
  intended: { _tag: "After", after: "a = \"x\"\nb = \"y\"\n" }
}

const refusal: EditCase = {
  family: "ambiguous_duplicates",
  variant: "exact_twice",
  encoding: "utf-8",
  before: "x = 1\nx = 1\n",
  request: { old_string: "x = 1", new_string: "x = 2" },
  intended: { _tag: "MustRefuse", why: "old_string occurs twice" }
}

describe("expectLanding", () => {
  it("calls the intended text applied-correct, in text and in bytes", () => {
    assert.deepStrictEqual(expectLanding(change, applied("a = \"x\"\nb = \"y\"\n")), { verdict: "applied-correct" })
    assert.deepStrictEqual(expectLanding(change, applied(intendedBytes(change)!)), { verdict: "applied-correct" })
  })

  it("calls a refusal refused, saying whether refusing was the only right answer", () => {
    assert.deepStrictEqual(expectLanding(change, refused("no match")), { verdict: "refused", hadToRefuse: false })
    assert.deepStrictEqual(expectLanding(refusal, refused()), { verdict: "refused", hadToRefuse: true })
  })

  it("names the wrong span: the other place edited", () => {
    const landing = expectLanding(change, applied("a = \"y\"\nb = \"x\"\n"))
    assert.strictEqual(landing.verdict, "applied-wrong")
    if (landing.verdict !== "applied-wrong") return
    assert.deepStrictEqual(landing.span, { unit: "chars", start: 5, end: 14, intendedEnd: 14, actual: "y\"\nb = \"x", intended: "x\"\nb = \"y" })
    assert.isFalse(landing.hadToRefuse)
  })

  it("names the wrong span in bytes: a stray character left in a GBK file", () => {
    const gbk: EditCase = { ...change, encoding: "gbk", before: "中文 -- 注释\n", request: { old_string: "\u2014 注释", new_string: "— 说明" }, intended: { _tag: "After", after: "中文 — 说明\n" } }
    const after = new Uint8Array(iconv.encode("中文 -— 说明\n", "gbk"))
    const landing = expectLanding(gbk, applied(after))
    assert.strictEqual(landing.verdict, "applied-wrong")
    if (landing.verdict !== "applied-wrong") return
    assert.strictEqual(landing.span.unit, "bytes")
    assert.strictEqual(landing.span.start, 5)
    assert.strictEqual(landing.span.actual, "2d")
    assert.strictEqual(landing.span.intended, "")
    assert.strictEqual(landing.span.end - landing.span.intendedEnd, 1)
  })

  it("calls any change to a case that had to be refused applied-wrong", () => {
    const landing = expectLanding(refusal, applied("x = 2\nx = 1\n"))
    assert.strictEqual(landing.verdict, "applied-wrong")
    if (landing.verdict !== "applied-wrong") return
    assert.isTrue(landing.hadToRefuse)
    assert.deepStrictEqual([landing.span.start, landing.span.end, landing.span.actual, landing.span.intended], [4, 5, "2", "1"])
  })

  it("calls a claimed success that left the file as it was applied-wrong (the change is missing)", () => {
    const landing = expectLanding(change, applied(beforeBytes(change)))
    assert.strictEqual(landing.verdict, "applied-wrong")
  })

  it("compares bytes with the BOM and line endings of the case", () => {
    const bom: EditCase = { ...change, encoding: "utf-8-bom", before: "a\r\nb\r\n", intended: { _tag: "After", after: "a\r\nc\r\n" } }
    assert.deepStrictEqual(Array.from(beforeBytes(bom).subarray(0, 3)), [0xef, 0xbb, 0xbf])
    assert.strictEqual(expectLanding(bom, applied(Buffer.from("\ufeffa\r\nc\r\n"))).verdict, "applied-correct")
    assert.strictEqual(expectLanding(bom, applied(Buffer.from("a\r\nc\r\n"))).verdict, "applied-wrong")
    assert.strictEqual(expectLanding(bom, applied(Buffer.from("\ufeffa\r\nc\n"))).verdict, "applied-wrong")
  })
})

describe("assertNeverWrong", () => {
  it("returns correct and refused landings and throws an account of a wrong one", () => {
    assert.strictEqual(assertNeverWrong(change, refused()).verdict, "refused")
    assert.throws(() => assertNeverWrong(refusal, applied("x = 2\nx = 2\n")), /ambiguous_duplicates\/exact_twice \(utf-8\): applied WRONG although it had to refuse \(old_string occurs twice\)/)
    const landing = expectLanding(change, applied("a = \"x\"\nb = \"z\"\n"))
    assert.match(describeLanding(change, landing), /at chars 13-14 the file has "z" where "y" was intended/)
  })
})
