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
import * as Schema from "effect/Schema"
import { Kind } from "../tool/kind.js"
import type { AskUserQuestionConfirmation, ConfirmationOutcome } from "../tool/permission.js"
import { textResult } from "../tool/result.js"
import { defineTool } from "../tool/tool.js"

/** Questions per call. @category constants */
export const MIN_QUESTIONS = 1
/** Questions per call. @category constants */
export const MAX_QUESTIONS = 4
/** Options per question. @category constants */
export const MIN_OPTIONS = 2
/** Options per question. @category constants */
export const MAX_OPTIONS = 4

/** The model-facing texts of the reference. @category constants */
export const AskTexts = {
  title: "Please answer the following question(s):",
  declined: "User declined to answer the questions.",
  nonInteractive: "Cannot ask user questions in non-interactive mode without ACP support. Please run in interactive mode or " +
    "enable ACP mode to use this tool.",
  answered: "User has provided the following answers:\n\n",
  noValidAnswers: "No valid answers were provided.",
  questionsNotArray: `Parameter "questions" must be an array.`,
  questionsCount: `Parameter "questions" must contain between ${MIN_QUESTIONS} and ${MAX_QUESTIONS} questions.`
} as const

const DESCRIPTION = `Asks the user one to four multiple-choice questions during the task and returns their answers.

Use it to gather preferences or requirements, to settle an ambiguous instruction, or to let the user choose between approaches before you commit to one. Each question offers 2–4 distinct options; set multiSelect when several may apply. If you recommend an option, list it first and end its label with "(Recommended)". Do not use it to ask whether a plan is ready or whether to proceed.`

const OptionSchema = Schema.Struct({
  label: Schema.String.annotate({
    message: `"label" must be a non-empty string.`,
    description: "What the user sees and picks: concise, 1–5 words."
  }),
  description: Schema.String.annotate({
    message: `"description" must be a non-empty string.`,
    description: "What choosing this option means: its trade-offs or consequences."
  })
}).annotate({ message: "Each option must be an object with a label and a description." })

const optionCountHint = Schema.makeFilter<ReadonlyArray<unknown>>(() => true, {
  // Enforced with the question's number in `validate`; declared here for the model's schema.
  toJsonSchema: () => ({ minItems: MIN_OPTIONS, maxItems: MAX_OPTIONS })
})

const QuestionSchema = Schema.Struct({
  question: Schema.String.annotate({
    message: `"question" must be a non-empty string.`,
    description: `The complete question, ending with a question mark (e.g. "Which library should we use for dates?").`
  }),
  header: Schema.String.annotate({
    message: `"header" must be a non-empty string.`,
    description: `A very short label for the question, at most 12 characters (e.g. "Library", "Auth method").`
  }),
  options: Schema.Array(OptionSchema).annotate({
    message: `"options" must be an array.`,
    description: `${MIN_OPTIONS}–${MAX_OPTIONS} distinct choices (mutually exclusive unless multiSelect).`
  }).check(optionCountHint),
  multiSelect: Schema.optionalKey(Schema.Boolean.annotate({
    message: `"multiSelect" must be a boolean.`,
    description: "Let the user pick several options (default false).",
    default: false
  }))
}).annotate({ message: "Each question must be an object." })

/** The params of `ask_user_question`. @category schemas */
export const AskUserQuestionParams = Schema.Struct({
  questions: Schema.Array(QuestionSchema).annotate({ message: AskTexts.questionsNotArray }).check(
    Schema.isMinLength(MIN_QUESTIONS, { message: AskTexts.questionsCount }),
    Schema.isMaxLength(MAX_QUESTIONS, { message: AskTexts.questionsCount })
  ).annotate({ description: `The questions (${MIN_QUESTIONS}–${MAX_QUESTIONS}).` }).annotateKey({
    messageMissingKey: AskTexts.questionsNotArray
  }),
  metadata: Schema.optionalKey(
    Schema.Struct({
      source: Schema.optionalKey(Schema.String.annotate({ description: "Where the question comes from, for tracking." }))
    }).annotate({ description: "Tracking data; never shown to the user." })
  )
})

/** The params of `ask_user_question`. @category models */
export type AskUserQuestionParams = typeof AskUserQuestionParams.Type

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
  name: "ask_user_question",
  displayName: "AskUserQuestion",
  description: DESCRIPTION,
  kind: Kind.Think,
  params: AskUserQuestionParams,
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
