/**
 * Approvals on the wire: every ConfirmationDetails variant and every ConfirmationOutcome variant
 * survive the trip (schema encode, JSON text, decode) and come back as the shapes the scheduler and
 * the elicitation code take.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import {
  ApprovalRequestWire,
  ConfirmationOutcomeWire,
  fromOutcomeWire,
  toApprovalRequest,
  toApprovalRequestWire,
  toOutcomeWire
} from "../../src/cluster/index.js"
import type { ApprovalRequest } from "../../src/run/index.js"
import { approvalForm, approvalMessage } from "../../src/serve/elicitation.js"
import { type ConfirmationDetails, type ConfirmationOutcome, Kind, type ToolInfo } from "../../src/tool/index.js"

/** Through the wire: the schema's JSON codec, then text, then back. */
const trip = <S extends Schema.Top>(schema: S, value: S["Type"]): S["Type"] => {
  const codec = Schema.toCodecJson(schema) as unknown as Schema.Codec<S["Type"], unknown>
  const text = JSON.stringify(Schema.encodeUnknownSync(codec)(value))
  return Schema.decodeUnknownSync(codec)(JSON.parse(text))
}

const opt = <A>(arb: fc.Arbitrary<A>) => fc.option(arb, { nil: undefined })
const text = fc.string({ maxLength: 40 })
const param = fc.constantFrom("new_string" as const, "content" as const, "command" as const)
const amendable = opt(fc.record({ param, proposal: text }))
const amendment = opt(fc.record({ param, value: text }))

const details: fc.Arbitrary<ConfirmationDetails> = fc.oneof(
  fc.record({
    type: fc.constant("edit" as const),
    title: text,
    fileName: text,
    filePath: text,
    fileDiff: text,
    originalContent: fc.option(text, { nil: null }),
    newContent: text,
    amendable
  }),
  fc.record({ type: fc.constant("exec" as const), title: text, command: text, rootCommand: text, warnings: opt(fc.array(text)), amendable }),
  fc.record({ type: fc.constant("mcp" as const), title: text, serverName: text, toolName: text, toolDisplayName: text }),
  fc.record({ type: fc.constant("info" as const), title: text, prompt: text, urls: opt(fc.array(text)) }),
  fc.record({
    type: fc.constant("ask_user_question" as const),
    title: text,
    questions: fc.array(fc.record({
      question: text,
      header: text,
      options: fc.array(fc.record({ label: text, description: text }), { maxLength: 4 }),
      multiSelect: fc.boolean()
    }), { maxLength: 4 })
  })
)

const tool: fc.Arbitrary<ToolInfo> = fc.record({
  name: text,
  displayName: text,
  description: text,
  kind: fc.constantFrom(...Object.values(Kind)),
  shouldDefer: fc.boolean(),
  alwaysLoad: fc.boolean(),
  searchHint: opt(text),
  maxOutputChars: opt(fc.integer({ min: 0 })),
  truncateKeep: fc.constantFrom("head" as const, "tail" as const, "both" as const),
  serverName: opt(text),
  pathFields: fc.array(text, { maxLength: 3 }),
  // A key named "__proto__" is left out: Schema's record decoding does not create it as an own key
  // (it guards against prototype pollution), and no tool's JSON Schema has one.
  parametersJsonSchema: fc.dictionary(
    text.filter((k) => k !== "__proto__"),
    fc.jsonValue({ maxDepth: 2 }).filter((v) => !JSON.stringify(v).includes('"__proto__"'))
  )
})

const request: fc.Arbitrary<ApprovalRequest> = fc.record({ tool, description: text, locations: opt(fc.array(text)), details })

const outcome: fc.Arbitrary<ConfirmationOutcome> = fc.oneof(
  fc.record({ _tag: fc.constant("proceed_once" as const), answers: opt(fc.dictionary(text, text)), amended: amendment }),
  fc.record({ _tag: fc.constant("proceed_always" as const), amended: amendment }),
  fc.record({ _tag: fc.constant("cancel" as const), reason: opt(text), unasked: opt(fc.boolean()) })
)

/** The value with `undefined` keys dropped, as the comparison of what arrives must see it. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

describe("approvals on the wire", () => {
  it("every request (tool, description, locations, each details variant) comes back as it left", () => {
    fc.assert(fc.property(request, (original) => {
      const back = toApprovalRequest(trip(ApprovalRequestWire, toApprovalRequestWire(original)))
      assert.deepStrictEqual(plain(back), plain(original))
      // The optional facts of the tool are keys again (ToolInfo declares them), present or not.
      for (const key of ["searchHint", "maxOutputChars", "serverName"] as const) assert.isTrue(key in back.tool)
      // What a person is shown is the same text on either side.
      assert.strictEqual(approvalMessage(back), approvalMessage(original))
    }), { numRuns: 300 })
  })

  it("every outcome (answers, amended, unasked) comes back as it left", () => {
    fc.assert(fc.property(outcome, (original) => {
      const back = fromOutcomeWire(trip(ConfirmationOutcomeWire, toOutcomeWire(original)))
      assert.deepStrictEqual(plain(back), plain(original))
    }), { numRuns: 300 })
  })

  it("an edit's approval form is built from the wire request as from the session's own", () => {
    const original: ApprovalRequest = {
      tool: {
        name: "edit", displayName: "Edit", description: "Replaces text", kind: "edit", shouldDefer: false, alwaysLoad: true,
        searchHint: undefined, maxOutputChars: undefined, truncateKeep: "both", serverName: undefined, pathFields: ["file_path"],
        parametersJsonSchema: { type: "object" }
      },
      description: "a.txt: hello => bye",
      locations: ["/w/a.txt"],
      details: {
        type: "edit", title: "Confirm Edit: a.txt", fileName: "a.txt", filePath: "/w/a.txt", fileDiff: "-hello\n+bye\n",
        originalContent: "hello\n", newContent: "bye\n", amendable: { param: "new_string", proposal: "bye" }
      }
    }
    const back = toApprovalRequest(trip(ApprovalRequestWire, toApprovalRequestWire(original)))
    assert.deepStrictEqual(approvalForm(back), approvalForm(original))
    assert.include(approvalForm(back).message, "+bye")
  })

  it("an outcome the wire does not know is refused by the schema", () => {
    const decode = Schema.decodeUnknownExit(ConfirmationOutcomeWire)
    assert.isTrue(decode({ _tag: "proceed_twice" })._tag === "Failure")
    assert.isTrue(decode({ _tag: "proceed_once", amended: { param: "path", value: "x" } })._tag === "Failure")
  })
})
