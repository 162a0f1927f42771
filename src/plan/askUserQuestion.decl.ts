/**
 * The declaration of `ask_user_question`: what a model is shown (the description is
 * askUserQuestion.md), with the schema's messages and limits. The behaviour is in
 * askUserQuestion.ts, imported on the tool's first call.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind } from "../tool/index.js"

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

/** The declaration of `ask_user_question`. @category declarations */
export const askUserQuestionDeclaration = declareTool({
  name: "ask_user_question",
  displayName: "AskUserQuestion",
  kind: Kind.Think,
  description: descriptionFile(import.meta.url, "askUserQuestion.md"),
  params: AskUserQuestionParams
})
