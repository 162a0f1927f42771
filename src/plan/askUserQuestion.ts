/**
 * `ask_user_question`: puts 1–4 multiple-choice questions to the user and returns the answers.
 *
 * The question is not a permission: the invocation requires user interaction, so the scheduler
 * asks the approver in every approval mode (yolo included) and hands its answer to `execute`.
 * The approver answers with `proceed_once` and `answers` keyed by question index ("0", "1", …); a
 * decline becomes "User declined…"; an approver that cannot ask (no answers at all) gets the
 * reference's non-interactive text. In `toolwright serve` the approver is an MCP elicitation form.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { type AskUserQuestionConfirmation, type ConfirmationOutcome, defineTool, textResult } from "../tool/index.js"
import {
  AskTexts,
  AskUserQuestionParams,
  askUserQuestionDeclaration,
  MAX_OPTIONS,
  MAX_QUESTIONS,
  MIN_OPTIONS,
  MIN_QUESTIONS
} from "./askUserQuestion.decl.js"

export { AskTexts, AskUserQuestionParams, MAX_OPTIONS, MAX_QUESTIONS, MIN_OPTIONS, MIN_QUESTIONS } from "./askUserQuestion.decl.js"

const blank = (s: string) => s.trim().length === 0

/**
 * The value checks, with the reference's 1-based messages (every problem, one per line).
 *
 * @category validation
 */
export const validateQuestions = (params: AskUserQuestionParams): string | undefined => {
  const problems: Array<string> = []
  params.questions.forEach((q, qi) => {
    const i = qi + 1
    if (blank(q.question)) problems.push(`Question ${i}: "question" must be a non-empty string.`)
    if (blank(q.header)) problems.push(`Question ${i}: "header" must be a non-empty string.`)
    if (q.options.length < MIN_OPTIONS || q.options.length > MAX_OPTIONS) {
      problems.push(`Question ${i}: "options" must contain between ${MIN_OPTIONS} and ${MAX_OPTIONS} options.`)
    }
    q.options.forEach((o, oj) => {
      if (blank(o.label)) problems.push(`Question ${i}, Option ${oj + 1}: "label" must be a non-empty string.`)
      if (blank(o.description)) problems.push(`Question ${i}, Option ${oj + 1}: "description" must be a non-empty string.`)
    })
  })
  return problems.length > 0 ? problems.join("\n") : undefined
}

/** The index an answer key names: a canonical decimal below the question count. @category parsing */
export const answerIndex = (key: string, count: number): number | undefined => {
  const index = Number(key)
  return Number.isSafeInteger(index) && index >= 0 && index < count && String(index) === key ? index : undefined
}

/**
 * The result text for the answers: one `**header**: answer` line per valid key (keys that name no
 * question are dropped).
 *
 * @category texts
 */
export const formatAnswers = (
  questions: ReadonlyArray<{ readonly header: string }>,
  answers: Readonly<Record<string, string>>
): string => {
  const lines = Object.entries(answers).flatMap(([key, value]) => {
    const index = answerIndex(key, questions.length)
    if (index === undefined) return []
    const header = questions[index]!.header
    return [`**${header.length > 0 ? header : `Question ${index + 1}`}**: ${value}`]
  })
  return AskTexts.answered + (lines.length > 0 ? lines.join("\n") : AskTexts.noValidAnswers)
}

/** What an `ask_user_question` call returned, for programs. @category models */
export type AskUserQuestionData =
  | { readonly _tag: "Answered"; readonly answers: Readonly<Record<string, string>> }
  | { readonly _tag: "Declined" }
  | { readonly _tag: "NotAsked" }

/** The result for the approver's outcome. @category texts */
export const resultFor = (
  questions: ReadonlyArray<{ readonly header: string }>,
  outcome: ConfirmationOutcome | undefined
): { readonly text: string; readonly data: AskUserQuestionData } => {
  if (outcome?._tag === "cancel") return { text: AskTexts.declined, data: { _tag: "Declined" } }
  if (outcome?._tag === "proceed_once" && outcome.answers !== undefined) {
    return { text: formatAnswers(questions, outcome.answers), data: { _tag: "Answered", answers: outcome.answers } }
  }
  return { text: AskTexts.nonInteractive, data: { _tag: "NotAsked" } }
}

/** The confirmation the approver (a person, through the door) answers. @category constructors */
export const confirmationFor = (params: AskUserQuestionParams): AskUserQuestionConfirmation => ({
  type: "ask_user_question",
  title: AskTexts.title,
  questions: params.questions.map((q) => ({
    question: q.question,
    header: q.header,
    options: q.options,
    multiSelect: q.multiSelect ?? false
  }))
})

/**
 * Makes `ask_user_question`.
 *
 * @category constructors
 */
export const makeAskUserQuestion = Effect.succeed(defineTool({
  ...askUserQuestionDeclaration,
  validate: validateQuestions,
  invoke: (params) =>
    Effect.succeed({
      description: `Ask user ${params.questions.length} question${params.questions.length > 1 ? "s" : ""}`,
      defaultPermission: Effect.succeed("ask" as const),
      requiresUserInteraction: true,
      confirmation: Effect.succeed(confirmationFor(params)),
      execute: ({ confirmation }) => {
        const { data, text } = resultFor(params.questions, confirmation)
        return Effect.succeed(textResult<AskUserQuestionData>(text, { data }))
      }
    })
}))
