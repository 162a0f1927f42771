import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AskTexts, formatAnswers, makeAskUserQuestion } from "../../src/plan/index.js"
import { Approver, makeRecordingApprover } from "../../src/run/approver.js"
import type { ApprovalMode } from "../../src/run/policy.js"
import { answersFromForm, questionForm } from "../../src/serve/elicitation.js"
import type { AskUserQuestionConfirmation, ConfirmationOutcome } from "../../src/tool/permission.js"
import { codeOf, planSession, run, tempDir, textOf } from "./helpers.js"

const option = (label: string, description = `About ${label}`) => ({ label, description })
const question = (header: string, labels: ReadonlyArray<string>, extra: Record<string, unknown> = {}) => ({
  question: `Which ${header.toLowerCase()} should we use?`,
  header,
  options: labels.map((l) => option(l)),
  ...extra
})
const TWO = [question("Library", ["dayjs", "luxon"]), question("Auth", ["OAuth", "SAML", "Basic"], { multiSelect: true })]

const withApprover = (script: ReadonlyArray<ConfirmationOutcome>, fallback?: ConfirmationOutcome) =>
  Effect.gen(function*() {
    const recording = yield* makeRecordingApprover(script, fallback)
    return { recording, layer: Layer.succeed(Approver, recording.approver) }
  })

const session = (options: { readonly approver?: Layer.Layer<Approver>; readonly mode?: ApprovalMode; readonly rules?: ReadonlyArray<{ decision: "allow" | "deny" | "ask"; pattern: string }> }) =>
  Effect.gen(function*() {
    const root = yield* tempDir()
    const stateDir = yield* tempDir()
    return planSession({ root, stateDir, ...options })
  })

describe("ask_user_question: validation", () => {
  const cases: ReadonlyArray<readonly [string, unknown, string]> = [
    ["no questions", {}, `params.questions: ${AskTexts.questionsNotArray}`],
    ["questions not an array", { questions: "which?" }, `params.questions: ${AskTexts.questionsNotArray}`],
    ["zero questions", { questions: [] }, `params.questions: ${AskTexts.questionsCount}`],
    ["five questions", { questions: Array.from({ length: 5 }, () => TWO[0]) }, `params.questions: ${AskTexts.questionsCount}`],
    ["an empty question", { questions: [{ ...TWO[0], question: "" }] }, `Question 1: "question" must be a non-empty string.`],
    ["a blank header in question 2", { questions: [TWO[0], { ...TWO[1], header: "  " }] }, `Question 2: "header" must be a non-empty string.`],
    ["one option", { questions: [question("One", ["only"])] }, `Question 1: "options" must contain between 2 and 4 options.`],
    ["five options", { questions: [TWO[0], question("Many", ["a", "b", "c", "d", "e"])] }, `Question 2: "options" must contain between 2 and 4 options.`],
    ["an empty label", { questions: [{ ...TWO[0], options: [option("a"), { label: "", description: "x" }] }] }, `Question 1, Option 2: "label" must be a non-empty string.`],
    ["an empty option description", { questions: [{ ...TWO[0], options: [{ label: "a", description: " " }, option("b")] }] }, `Question 1, Option 1: "description" must be a non-empty string.`],
    ["options not an array", { questions: [{ ...TWO[0], options: "a or b" }] }, `params.questions.0.options: "options" must be an array.`],
    ["multiSelect not a boolean", { questions: [{ ...TWO[0], multiSelect: "yes" }] }, `params.questions.0.multiSelect: "multiSelect" must be a boolean.`],
    ["a question that is not a string", { questions: [{ ...TWO[0], question: 42 }] }, `params.questions.0.question: "question" must be a non-empty string.`],
    ["a header that is not a string", { questions: [{ ...TWO[0], header: null }] }, `params.questions.0.header: "header" must be a non-empty string.`],
    ["a label that is not a string", { questions: [{ ...TWO[0], options: [option("a"), { label: 1, description: "x" }] }] }, `params.questions.0.options.1.label: "label" must be a non-empty string.`],
    ["a missing option description", { questions: [{ ...TWO[0], options: [option("a"), { label: "b" }] }] }, `params.questions.0.options.1.description: Missing key`],
    ["an extra property", { questions: TWO, urgent: true }, "params.urgent: Expected no excess property"]
  ]

  it.effect("each bad call fails with invalid_tool_params and the reference's message; the user is never asked", () =>
    Effect.gen(function*() {
      const { layer, recording } = yield* withApprover([])
      const context = yield* Layer.build(yield* session({ approver: layer }))
      for (const [label, args, message] of cases) {
        const result = yield* Effect.provideContext(run("ask_user_question", args), context)
        assert.strictEqual(codeOf(result), "invalid_tool_params", label)
        assert.include(textOf(result), message, label)
      }
      assert.lengthOf(yield* recording.requests, 0)
    }))

  it.effect("value problems are all reported, one per line, with 1-based numbers", () =>
    Effect.gen(function*() {
      const tool = yield* makeAskUserQuestion
      const error = yield* Effect.flip(tool.build({
        questions: [{ question: " ", header: "", options: [{ label: "", description: "" }] }]
      }))
      assert.strictEqual(
        error.message,
        [
          `Question 1: "question" must be a non-empty string.`,
          `Question 1: "header" must be a non-empty string.`,
          `Question 1: "options" must contain between 2 and 4 options.`,
          `Question 1, Option 1: "label" must be a non-empty string.`,
          `Question 1, Option 1: "description" must be a non-empty string.`
        ].join("\n")
      )
    }))

  it.effect("limits at their edges: 1 and 4 questions, 2 and 4 options are accepted", () =>
    Effect.gen(function*() {
      const tool = yield* makeAskUserQuestion
      yield* tool.build({ questions: [question("Two", ["a", "b"])] })
      yield* tool.build({ questions: Array.from({ length: 4 }, () => question("Four", ["a", "b", "c", "d"])) })
      const schema = tool.parametersJsonSchema as any
      assert.deepStrictEqual([schema.properties.questions.minItems, schema.properties.questions.maxItems], [1, 4])
      const options = schema.properties.questions.items.properties.options
      assert.deepStrictEqual([options.minItems, options.maxItems], [2, 4])
    }))
})

describe("ask_user_question: answers", () => {
  it("formats the reference vector: valid index keys only, in order", () => {
    assert.strictEqual(
      formatAnswers([{ header: "Library" }, { header: "Auth" }], { "0": "dayjs", "1": "OAuth", x: "y", "01": "z" }),
      "User has provided the following answers:\n\n**Library**: dayjs\n**Auth**: OAuth"
    )
    assert.strictEqual(formatAnswers([{ header: "" }], { "0": "yes" }), "User has provided the following answers:\n\n**Question 1**: yes")
    assert.strictEqual(
      formatAnswers([{ header: "A" }], { "1": "out of range", "-0": "no", "0.0": "no" }),
      "User has provided the following answers:\n\nNo valid answers were provided."
    )
  })

  for (const mode of ["yolo", "default", "plan"] as const) {
    it.effect(`is asked in ${mode} mode, even with an allow rule, and the answers reach the result`, () =>
      Effect.gen(function*() {
        const answers = { _tag: "proceed_once", answers: { "0": "dayjs", "1": "OAuth, SAML" } } as const
        const { layer, recording } = yield* withApprover([answers, answers])
        const context = yield* Layer.build(
          yield* session({ approver: layer, mode, rules: [{ decision: "allow", pattern: "ask_user_question" }] })
        )
        for (let i = 0; i < 2; i++) {
          const result = yield* Effect.provideContext(run("ask_user_question", { questions: TWO }), context)
          assert.strictEqual(result._tag, "Success")
          assert.strictEqual(textOf(result), "User has provided the following answers:\n\n**Library**: dayjs\n**Auth**: OAuth, SAML")
        }
        const requests = yield* recording.requests
        assert.lengthOf(requests, 2)
        assert.strictEqual(requests[0]!.description, "Ask user 2 questions")
        const details = requests[0]!.details as AskUserQuestionConfirmation
        assert.strictEqual(details.type, "ask_user_question")
        assert.strictEqual(details.title, "Please answer the following question(s):")
        assert.deepStrictEqual(details.questions.map((q) => [q.header, q.multiSelect, q.options.length]), [["Library", false, 2], ["Auth", true, 3]])
      }))
  }

  it.effect("proceed_always answers this time and does not stop the next question from being asked", () =>
    Effect.gen(function*() {
      const { layer, recording } = yield* withApprover([{ _tag: "proceed_always" }], { _tag: "cancel" })
      const context = yield* Layer.build(yield* session({ approver: layer }))
      const first = yield* Effect.provideContext(run("ask_user_question", { questions: [TWO[0]] }), context)
      assert.strictEqual(textOf(first), AskTexts.nonInteractive)
      const second = yield* Effect.provideContext(run("ask_user_question", { questions: [TWO[0]] }), context)
      assert.strictEqual(textOf(second), AskTexts.declined)
      assert.lengthOf(yield* recording.requests, 2)
    }))

  it.effect("a decline is a result the model reads, not a cancelled call", () =>
    Effect.gen(function*() {
      const result = yield* run("ask_user_question", { questions: TWO }).pipe(
        Effect.provide(yield* session({ approver: Approver.layerFixed({ _tag: "cancel", reason: "later" }) }))
      )
      assert.strictEqual(result._tag, "Success")
      assert.strictEqual(textOf(result), "User declined to answer the questions.")
    }))

  it.effect("an approver that cannot ask (no answers) gets the non-interactive text, not an error", () =>
    Effect.gen(function*() {
      const result = yield* run("ask_user_question", { questions: TWO }).pipe(Effect.provide(yield* session({})))
      assert.strictEqual(result._tag, "Success")
      assert.strictEqual(
        textOf(result),
        "Cannot ask user questions in non-interactive mode without ACP support. Please run in interactive mode or enable ACP mode to use this tool."
      )
    }))

  it.effect("a deny rule still refuses the call, without asking", () =>
    Effect.gen(function*() {
      const { layer, recording } = yield* withApprover([])
      const result = yield* run("ask_user_question", { questions: TWO }).pipe(
        Effect.provide(yield* session({ approver: layer, mode: "yolo", rules: [{ decision: "deny", pattern: "ask_user_question" }] }))
      )
      assert.strictEqual(codeOf(result), "execution_denied")
      assert.lengthOf(yield* recording.requests, 0)
    }))

  it.effect("called directly from a program, the answers come in the execute context", () =>
    Effect.gen(function*() {
      const tool = yield* makeAskUserQuestion
      assert.strictEqual(tool.kind, "think")
      assert.isFalse(tool.shouldDefer)
      const unanswered = yield* tool.call({ questions: [TWO[0]!] })
      assert.deepStrictEqual(unanswered.data, { _tag: "NotAsked" })
      const answered = yield* tool.call({ questions: [TWO[0]!] }, { confirmation: { _tag: "proceed_once", answers: { "0": "luxon" } } })
      assert.deepStrictEqual(answered.data, { _tag: "Answered", answers: { "0": "luxon" } })
      assert.deepStrictEqual(answered.llmContent, [{ type: "text", text: "User has provided the following answers:\n\n**Library**: luxon" }])
    }))
})

describe("the serve door's question form", () => {
  const details: AskUserQuestionConfirmation = {
    type: "ask_user_question",
    title: AskTexts.title,
    questions: [
      { question: "Which library?", header: "Library", options: [option("dayjs", "small"), option("luxon", "rich")], multiSelect: false },
      { question: "Which auth?", header: "Auth", options: [option("OAuth"), option("SAML")], multiSelect: true }
    ]
  }

  it("has one choice field per question, keyed by index; multiSelect is an array of choices", () => {
    const form = questionForm(details)
    assert.strictEqual(form.message, "Please answer the following question(s):\n\n1. Library: Which library?\n2. Auth: Which auth?")
    assert.deepStrictEqual(form.requestedSchema.required, ["0", "1"])
    assert.deepStrictEqual(form.requestedSchema.properties["0"], {
      type: "string",
      title: "Library",
      description: "Which library?\n- dayjs: small\n- luxon: rich",
      enum: ["dayjs", "luxon"]
    })
    assert.deepStrictEqual(form.requestedSchema.properties["1"], {
      type: "array",
      title: "Auth",
      description: "Which auth?\n- OAuth: About OAuth\n- SAML: About SAML\n(Select one or more.)",
      minItems: 1,
      items: { type: "string", enum: ["OAuth", "SAML"] }
    })
  })

  it("turns the submitted form into answers keyed by question index", () => {
    assert.deepStrictEqual(answersFromForm(details, { "0": "luxon", "1": ["OAuth", "SAML"] }), { "0": "luxon", "1": "OAuth, SAML" })
    assert.deepStrictEqual(answersFromForm(details, { "0": "a, b", "1": "OAuth,SAML" }), { "0": "a, b", "1": "OAuth, SAML" })
    assert.deepStrictEqual(answersFromForm(details, { "1": [] }), {})
    assert.deepStrictEqual(answersFromForm(details, undefined), {})
  })
})
