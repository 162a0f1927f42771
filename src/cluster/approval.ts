/**
 * Approvals on the wire: what a session entity asks the front that sent a batch (the tool, the
 * call's description and locations, every kind of {@link ConfirmationDetails}) and what the front
 * answers (every {@link ConfirmationOutcome}: `answers` of `ask_user_question`, an `amended`
 * parameter, `unasked`). Optional fields are absent keys on the wire, never `undefined` values.
 *
 * @since 0.3.0
 */
import * as Schema from "effect/Schema"
import type { ApprovalRequest } from "../run/index.js"
import { type ConfirmationOutcome, Kind } from "../tool/index.js"

const AmendableParam = Schema.Literals(["new_string", "content", "command"])
const Amendable = Schema.Struct({ param: AmendableParam, proposal: Schema.String })
const Amendment = Schema.Struct({ param: AmendableParam, value: Schema.String })
const Strings = Schema.Array(Schema.String)

/** The facts of the tool a call is for. @category models */
export const ToolInfoWire = Schema.Struct({
  name: Schema.String,
  displayName: Schema.String,
  description: Schema.String,
  kind: Schema.Literals(Object.values(Kind)),
  shouldDefer: Schema.Boolean,
  alwaysLoad: Schema.Boolean,
  searchHint: Schema.optionalKey(Schema.String),
  maxOutputChars: Schema.optionalKey(Schema.Number),
  truncateKeep: Schema.Literals(["head", "tail", "both"]),
  serverName: Schema.optionalKey(Schema.String),
  pathFields: Strings,
  parametersJsonSchema: Schema.Record(Schema.String, Schema.Unknown)
})

/** Every kind of confirmation a person is shown. @category models */
export const ConfirmationDetailsWire = Schema.Union([
  Schema.Struct({
    type: Schema.Literal("edit"),
    title: Schema.String,
    fileName: Schema.String,
    filePath: Schema.String,
    fileDiff: Schema.String,
    originalContent: Schema.NullOr(Schema.String),
    newContent: Schema.String,
    amendable: Schema.optionalKey(Amendable)
  }),
  Schema.Struct({
    type: Schema.Literal("exec"),
    title: Schema.String,
    command: Schema.String,
    rootCommand: Schema.String,
    warnings: Schema.optionalKey(Strings),
    amendable: Schema.optionalKey(Amendable)
  }),
  Schema.Struct({
    type: Schema.Literal("mcp"),
    title: Schema.String,
    serverName: Schema.String,
    toolName: Schema.String,
    toolDisplayName: Schema.String
  }),
  Schema.Struct({
    type: Schema.Literal("info"),
    title: Schema.String,
    prompt: Schema.String,
    urls: Schema.optionalKey(Strings)
  }),
  Schema.Struct({
    type: Schema.Literal("ask_user_question"),
    title: Schema.String,
    questions: Schema.Array(Schema.Struct({
      question: Schema.String,
      header: Schema.String,
      options: Schema.Array(Schema.Struct({ label: Schema.String, description: Schema.String })),
      multiSelect: Schema.Boolean
    }))
  })
])

/** What the session asks the front: an {@link ApprovalRequest} on the wire. @category models */
export const ApprovalRequestWire = Schema.Struct({
  tool: ToolInfoWire,
  description: Schema.String,
  locations: Schema.optionalKey(Strings),
  details: ConfirmationDetailsWire
})
/** @category models */
export type ApprovalRequestWire = typeof ApprovalRequestWire.Type

/** What the front answers: a {@link ConfirmationOutcome} on the wire. @category models */
export const ConfirmationOutcomeWire = Schema.Union([
  Schema.Struct({
    _tag: Schema.Literal("proceed_once"),
    answers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
    amended: Schema.optionalKey(Amendment)
  }),
  Schema.Struct({ _tag: Schema.Literal("proceed_always"), amended: Schema.optionalKey(Amendment) }),
  Schema.Struct({ _tag: Schema.Literal("cancel"), reason: Schema.optionalKey(Schema.String), unasked: Schema.optionalKey(Schema.Boolean) })
])
/** @category models */
export type ConfirmationOutcomeWire = typeof ConfirmationOutcomeWire.Type

/** A copy of plain data without the keys whose value is `undefined` (at any depth). */
const withoutUndefined = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutUndefined)
  if (value === null || typeof value !== "object") return value
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = withoutUndefined(v)
  return out
}

/** An approval request as it travels to the front. @category converters */
export const toApprovalRequestWire = (request: ApprovalRequest): ApprovalRequestWire =>
  withoutUndefined({
    tool: {
      name: request.tool.name,
      displayName: request.tool.displayName,
      description: request.tool.description,
      kind: request.tool.kind,
      shouldDefer: request.tool.shouldDefer,
      alwaysLoad: request.tool.alwaysLoad,
      searchHint: request.tool.searchHint,
      maxOutputChars: request.tool.maxOutputChars,
      truncateKeep: request.tool.truncateKeep,
      serverName: request.tool.serverName,
      pathFields: request.tool.pathFields,
      parametersJsonSchema: request.tool.parametersJsonSchema
    },
    description: request.description,
    locations: request.locations,
    details: request.details
  }) as ApprovalRequestWire

/**
 * The wire request as the {@link ApprovalRequest} a door's asking code takes (the elicitation
 * forms of `src/serve/elicitation.ts`, a UI callback).
 * @category converters
 */
export const toApprovalRequest = (wire: ApprovalRequestWire): ApprovalRequest => ({
  tool: {
    ...wire.tool,
    searchHint: wire.tool.searchHint,
    maxOutputChars: wire.tool.maxOutputChars,
    serverName: wire.tool.serverName
  },
  description: wire.description,
  ...(wire.locations !== undefined ? { locations: wire.locations } : {}),
  details: wire.details
})

/** An outcome as it travels back to the session. @category converters */
export const toOutcomeWire = (outcome: ConfirmationOutcome): ConfirmationOutcomeWire =>
  withoutUndefined(outcome) as ConfirmationOutcomeWire

/** The outcome the session's scheduler takes. @category converters */
export const fromOutcomeWire = (wire: ConfirmationOutcomeWire): ConfirmationOutcome => wire
