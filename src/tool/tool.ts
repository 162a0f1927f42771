/**
 * A tool, defined once: its name, what it does, its params as a Schema, and how a validated call
 * runs. `build` is the only way to an {@link Invocation}, so nothing executes unvalidated params.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { unescapePath } from "./unescapePath.js"
import { pathFieldsOf } from "./annotations.js"
import { InvalidToolParams, type PathNotInWorkspace, type PermissionDenied } from "./errors.js"
import { CONCURRENCY_SAFE_KINDS, type Kind, MUTATOR_KINDS } from "./kind.js"
import type { AppliedAmendment, ConfirmationDetails, ConfirmationOutcome, Permission } from "./permission.js"
import type { Display, LivePart, ToolResult } from "./result.js"

/** The params of every tool are a struct. @category models */
export type ToolParams = Schema.Struct<Schema.Struct.Fields>

/** How much of an over-long output survives truncation. @category models */
export type TruncateKeep = "head" | "tail" | "both"

/** A chunk of live output while a call runs (shell output, MCP progress). @category models */
export type LiveOutput = Display

/** A todo as event hooks see it. @category models */
export interface TodoEventItem {
  readonly id: string
  readonly content: string
  readonly status: string
}

/**
 * A change a tool is about to make or has made, for the session's event hooks: a todo that a
 * `todo_write` call creates, or one it moves to `completed` (`previousStatus` is absent for a todo
 * created already completed). `todos` is the whole list the call writes.
 *
 * @category models
 */
export type ToolEvent =
  | { readonly _tag: "TodoCreated"; readonly todo: TodoEventItem; readonly todos: ReadonlyArray<TodoEventItem> }
  | {
    readonly _tag: "TodoCompleted"
    readonly todo: TodoEventItem
    readonly previousStatus: string | undefined
    readonly todos: ReadonlyArray<TodoEventItem>
  }

/** A hook's verdict: go on, or stop with a reason the model is shown. @category models */
export type HookVerdict = { readonly _tag: "Continue" } | { readonly _tag: "Block"; readonly reason: string }

/**
 * The session's hooks on tool events, as an executing call sees them: `validate` runs before the
 * change (a `Block` stops it), `committed` after it (observe only; hook failures are logged, never
 * the call's).
 *
 * @category models
 */
export interface ToolEventHooks {
  readonly validate: (event: ToolEvent) => Effect.Effect<HookVerdict>
  readonly committed: (event: ToolEvent) => Effect.Effect<void>
}

/** What an executing call may use besides its params. @category models */
export interface ExecuteContext {
  /** Receives live output for people (a terminal screen, a progress line); throttling is the tool's job. */
  readonly onOutput?: ((chunk: LiveOutput) => Effect.Effect<void>) | undefined
  /**
   * Emits a live part (progress, new output lines) to the scheduler's `onPart` tap while the call
   * runs. Live parts are never part of the result; absent when nobody taps the call. The tool
   * coalesces (e.g. at most one part per 50 ms); doors throttle further.
   */
  readonly emit?: ((part: LivePart) => Effect.Effect<void>) | undefined
  /**
   * The approver's answer when the call was put to a person (for `ask_user_question`, the answers;
   * a decline arrives here too, see {@link InvocationSpec.requiresUserInteraction}).
   */
  readonly confirmation?: ConfirmationOutcome | undefined
  /**
   * The person's rewrite of the call's amendable parameter, when they amended it before approving
   * (the call was built again with it; the params the tool holds already carry the value).
   */
  readonly amendment?: AppliedAmendment | undefined
  /** The session's event hooks (absent when the tool is called directly, outside a scheduler). */
  readonly hooks?: ToolEventHooks | undefined
}

/**
 * What a tool computes from validated params: a description, the paths it touches, its default
 * permission, what to show before asking, and the execution itself.
 *
 * @category models
 */
export interface InvocationSpec<A, E> {
  readonly description: string
  /**
   * The real paths this call will read or write, from the tool's own resolution of its params
   * (shell escapes, `~`, relative to the first root, symlinks followed; see `realLocation`). The
   * policy, the approval prompt, the hooks and the batch's touched paths use these, never the raw
   * params. A tool with path params that leaves this undefined has them resolved for it in
   * {@link Tool.build} (fail closed); `[]` says the call touches no path.
   */
  readonly locations?: ReadonlyArray<string> | undefined
  /** Default `allow`. Policy rules and the approval mode start from this. */
  readonly defaultPermission?: Effect.Effect<Permission, E> | undefined
  /** Default: an `info` prompt showing the description. */
  readonly confirmation?: Effect.Effect<ConfirmationDetails, E> | undefined
  /** Whether this call may run in parallel with its neighbours. Default: by Kind (Read, Search, Fetch). */
  readonly concurrencySafe?: boolean | undefined
  /**
   * The parts a permission rule's specifier is matched against, for tools without path params
   * (the shell's simple commands). An allow rule must match every part; an ask or deny rule any
   * part. Default: the classifier input as one part.
   */
  readonly ruleSubjects?: ReadonlyArray<string> | undefined
  /**
   * The call exists to ask the user (`ask_user_question`): the approver is asked in every approval
   * mode, even when rules, the mode or an earlier "always" allow the call, and its answer, a
   * decline included, reaches `execute` as `context.confirmation` instead of cancelling the call.
   * A `deny` still refuses it. Default false.
   */
  readonly requiresUserInteraction?: boolean | undefined
  /**
   * The call must be approved by a person each time (a command run outside the sandbox): the
   * approver is asked in every mode (`yolo`, `auto-edit` and allow rules included), an earlier
   * "always" does not cover it and is not recorded, and a decline cancels it. Deny rules and plan
   * mode still refuse it. Default false.
   */
  readonly requiresPersonApproval?: boolean | undefined
  /** Interruption is cancellation. */
  readonly execute: (context: ExecuteContext) => Effect.Effect<ToolResult<A>, E>
}

/**
 * Everything needed to define a tool.
 *
 * `validate` is for value checks the Schema cannot express (return a message naming the field);
 * `invoke` may also fail (a path outside the workspace, say) before anything runs.
 *
 * @category models
 */
export interface ToolSpec<Name extends string, P extends ToolParams, A, E, BE> {
  readonly name: Name
  readonly displayName: string
  readonly description: string
  readonly kind: Kind
  readonly params: P
  readonly shouldDefer?: boolean | undefined
  readonly alwaysLoad?: boolean | undefined
  readonly searchHint?: string | undefined
  /** `undefined`: the global default budget; `Infinity`: the tool manages its own output size. */
  readonly maxOutputChars?: number | undefined
  readonly truncateKeep?: TruncateKeep | undefined
  /** Set for tools that come from an MCP server. */
  readonly serverName?: string | undefined
  /** What an automatic approval classifier may see of the params. Default `''`: nothing leaks. */
  readonly toAutoClassifierInput?: ((params: P["Type"]) => string) | undefined
  readonly validate?: ((params: P["Type"]) => string | undefined) | undefined
  /**
   * The tool resolves its path params itself (the built-ins do: shell escapes, `~`, their own
   * boundary checks) and reports its `locations`; the framework passes the params as given.
   * Default false: in a session (a call through the scheduler), every path param
   * (`PathParam`) is resolved before `invoke` — relative to the first workspace root,
   * symbolic links followed, inside the workspace (`path_not_in_workspace` otherwise, the same
   * errors as the built-ins) — and `invoke` receives the real absolute path. A direct `call`
   * has no workspace and resolves nothing.
   */
  readonly resolvesOwnPaths?: boolean | undefined
  /**
   * Old param names still accepted, each mapped to its current name (`{ taskId: "task_id" }`):
   * `build` renames them before decoding. Models see only the current names; an alias is kept for
   * one minor version after a rename. Passing both an alias and its name is invalid.
   */
  readonly paramAliases?: Readonly<Record<string, string>> | undefined
  /** What a declaration derived from `params` once (set by `declareTool`; spreading the declaration copies it). */
  readonly [DerivedParamsKey]?: DerivedParams | undefined
  readonly invoke: (params: P["Type"]) => Effect.Effect<InvocationSpec<A, E>, BE>
}

/**
 * What is derived from a params Schema alone, computed on first use and then kept: its path fields
 * and its JSON Schema. A declaration (`declareTool`) carries one under {@link DerivedParamsKey}, so
 * every session that defines the tool from it (each session builds its own tools on their first
 * call) reuses the derivation instead of walking the Schema again (0.1-0.5 ms per tool).
 *
 * @category models
 */
export interface DerivedParams {
  /** The Schema these were derived from: used only when the spec's params are this very Schema. */
  readonly params: ToolParams
  readonly pathFields: () => ReadonlyArray<string>
  readonly jsonSchema: () => JsonSchemaObject
}

/** The key of a spec's {@link DerivedParams} (a symbol: spreading a declaration copies it, listing keys does not show it). @category symbols */
export const DerivedParamsKey: unique symbol = Symbol.for("toolwright/tool/DerivedParams")

/**
 * A validated call, ready for policy, confirmation and execution. Only {@link Tool.build} makes one.
 *
 * @category models
 */
export class Invocation<P = unknown, A = unknown, E = unknown> {
  readonly #spec: InvocationSpec<A, E>
  private constructor(readonly tool: ToolInfo, readonly params: P, spec: InvocationSpec<A, E>) {
    this.#spec = spec
  }
  /** One line for people and logs. */
  get description(): string {
    return this.#spec.description
  }
  /** The real paths this call reads or writes (see {@link InvocationSpec.locations}). */
  get locations(): ReadonlyArray<string> {
    return this.#spec.locations ?? []
  }
  /** The permission the tool asks for before rules and modes apply. */
  get defaultPermission(): Effect.Effect<Permission, E> {
    return this.#spec.defaultPermission ?? Effect.succeed("allow")
  }
  /** What a person is shown before an `ask` call runs. */
  get confirmation(): Effect.Effect<ConfirmationDetails, E> {
    return this.#spec.confirmation ??
      Effect.succeed({ type: "info", title: `Confirm ${this.tool.displayName}`, prompt: this.#spec.description })
  }
  /** The parts permission rules are matched against (see {@link InvocationSpec.ruleSubjects}). */
  get ruleSubjects(): ReadonlyArray<string> | undefined {
    return this.#spec.ruleSubjects
  }
  /** Whether this call may run in parallel with its neighbours. */
  get concurrencySafe(): boolean {
    return this.#spec.concurrencySafe ?? CONCURRENCY_SAFE_KINDS.has(this.tool.kind)
  }
  /** Whether the call must be put to a person whatever the policy says (its answer is the point). */
  get requiresUserInteraction(): boolean {
    return this.#spec.requiresUserInteraction ?? false
  }

  /** See {@link InvocationSpec.requiresPersonApproval}. */
  get requiresPersonApproval(): boolean {
    return this.#spec.requiresPersonApproval ?? false
  }
  /** Runs the call. */
  execute(context: ExecuteContext = {}): Effect.Effect<ToolResult<A>, E> {
    return this.#spec.execute(context)
  }
  /** The same call with its run wrapped (the registry holds an idle-released tool's resources while it runs). */
  mapExecute<E2>(
    f: (execute: Effect.Effect<ToolResult<A>, E>, context: ExecuteContext) => Effect.Effect<ToolResult<A>, E2>
  ): Invocation<P, A, E | E2> {
    const spec = this.#spec
    return new makeInvocation<P, A, E | E2>(this.tool, this.params, { ...spec, execute: (context) => f(spec.execute(context), context) })
  }
}

type InvocationConstructor = new <P, A, E>(tool: ToolInfo, params: P, spec: InvocationSpec<A, E>) => Invocation<P, A, E>
const makeInvocation = Invocation as unknown as InvocationConstructor

/**
 * What `build` may use besides the args: the session's path resolver, for tools that declare path
 * params but report no locations of their own.
 *
 * @category models
 */
export interface BuildContext {
  /** Resolves a path as a model wrote it (relative to the first root, inside the workspace) to its real path. */
  readonly locate: (path: string) => Effect.Effect<string, PathNotInWorkspace | PermissionDenied | InvalidToolParams>
  /**
   * The same for a path a tool of a mutating Kind (edit, delete, move, execute) will write: only the
   * workspace roots, not the read-only directories. Default: `locate`.
   */
  readonly locateWritable?: ((path: string) => Effect.Effect<string, PathNotInWorkspace | PermissionDenied | InvalidToolParams>) | undefined
}

/** The errors of `build` besides the tool's own: bad args, or a path param that does not resolve. @category models */
export type BuildError = InvalidToolParams | PathNotInWorkspace | PermissionDenied

/**
 * The spec with its locations settled: a tool that reports none while its path params hold values
 * gets them resolved here, once, by `context.locate` — the value as given and its shell-unescaped
 * spelling, so whichever the tool acts on is covered — and a value that does not resolve fails
 * the call. Without a context (a direct call, no policy) nothing is resolved.
 */
const withLocations = <A, E>(
  spec: InvocationSpec<A, E>,
  pathFields: ReadonlyArray<string>,
  params: unknown,
  context: BuildContext | undefined
): Effect.Effect<InvocationSpec<A, E>, BuildError> => {
  if (spec.locations !== undefined || pathFields.length === 0 || context === undefined) return Effect.succeed(spec)
  const values = pathFields.flatMap((key) => {
    const value = (params as Record<string, unknown>)[key]
    return typeof value === "string" && value.length > 0 ? [value, unescapePath(value)] : []
  })
  return Effect.map(
    Effect.forEach([...new Set(values)], context.locate),
    (located) => ({ ...spec, locations: [...new Set(located)] })
  )
}

/**
 * A tool's path params resolved by the framework (see {@link ToolSpec.resolvesOwnPaths}): each
 * string value replaced by the real path `locate` gives it, and those paths as the locations, with
 * the real paths of their shell-unescaped spellings where these differ.
 */
const resolvePathParams = <P>(
  params: P,
  pathFields: ReadonlyArray<string>,
  locate: BuildContext["locate"]
): Effect.Effect<{ readonly params: P; readonly locations: ReadonlyArray<string> }, BuildError> => {
  const given = params as Record<string, unknown>
  const fields = pathFields.filter((key) => typeof given[key] === "string" && given[key] !== "")
  // the shell-unescaped spelling is a location too (a rule on `a b.txt` also covers `a\ b.txt`): fail closed
  const unescaped = fields.map((key) => unescapePath(given[key] as string)).filter((u, i) => u !== given[fields[i]!])
  return Effect.zipWith(
    Effect.forEach(fields, (key) => locate(given[key] as string)),
    Effect.forEach(unescaped, locate),
    (real, alsoReal) => ({
      params: { ...given, ...Object.fromEntries(fields.map((key, i) => [key, real[i]])) } as P,
      locations: [...new Set([...real, ...alsoReal])]
    })
  )
}

/** The static facts about a tool, without its behaviour. @category models */
export interface ToolInfo {
  readonly name: string
  readonly displayName: string
  readonly description: string
  readonly kind: Kind
  readonly shouldDefer: boolean
  readonly alwaysLoad: boolean
  readonly searchHint: string | undefined
  readonly maxOutputChars: number | undefined
  readonly truncateKeep: TruncateKeep
  readonly serverName: string | undefined
  /** Keys of the params annotated as paths. */
  readonly pathFields: ReadonlyArray<string>
  /** The JSON Schema of the params, as sent to models. */
  readonly parametersJsonSchema: JsonSchemaObject
}

/** Just the static facts of a tool (a loaded tool carries its behaviour too). @category getters */
export const infoOf = (tool: ToolInfo): ToolInfo => ({
  name: tool.name,
  displayName: tool.displayName,
  description: tool.description,
  kind: tool.kind,
  shouldDefer: tool.shouldDefer,
  alwaysLoad: tool.alwaysLoad,
  searchHint: tool.searchHint,
  maxOutputChars: tool.maxOutputChars,
  truncateKeep: tool.truncateKeep,
  serverName: tool.serverName,
  pathFields: tool.pathFields,
  parametersJsonSchema: tool.parametersJsonSchema
})

/** A JSON Schema object. @category models */
export type JsonSchemaObject = { readonly [key: string]: unknown }

/**
 * A defined tool.
 *
 * @category models
 */
export interface Tool<Name extends string = string, P extends ToolParams = ToolParams, A = unknown, E = unknown, BE = unknown>
  extends ToolInfo
{
  readonly name: Name
  readonly params: P
  /** What an automatic approval classifier may see of the params. */
  toAutoClassifierInput(params: P["Type"]): string
  /**
   * Decodes raw (JSON) args, runs the value checks, and yields an invocation. With a context, a
   * tool that declares path params but reports no locations gets them resolved (see {@link BuildContext}).
   */
  build(args: unknown, context?: BuildContext): Effect.Effect<Invocation<P["Type"], A, E>, BuildError | BE>
  /**
   * Calls the tool straight from an Effect program: typed params, typed success, typed errors; no
   * policy or output budget (use the scheduler for those).
   */
  call(params: P["Encoded"], context?: ExecuteContext): Effect.Effect<ToolResult<A>, BuildError | BE | E>
  /** The same tool under another name (an MCP tool renamed on a name clash). */
  withName(name: string): Tool<string, P, A, E, BE>
}

/** A tool with its types erased, as the registry holds it. @category models */
export type AnyTool = Tool<string, ToolParams, unknown, unknown, unknown>

/** The success type of a tool's calls. @category models */
export type ToolSuccess<T> = T extends Tool<any, any, infer A, any, any> ? A : never

/** The errors a tool's calls can fail with. @category models */
export type ToolFailure<T> = T extends Tool<any, any, any, infer E, infer BE> ? E | BE | BuildError : never

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const DECODE_OPTIONS = { errors: "all", onExcessProperty: "error" } as const

/** Raw args with deprecated param names renamed to the current ones (see {@link ToolSpec.paramAliases}). */
const renameAliases = (args: unknown, aliases: Readonly<Record<string, string>>): unknown | InvalidToolParams => {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return args
  const given = args as Record<string, unknown>
  const used = Object.keys(aliases).filter((alias) => Object.hasOwn(given, alias))
  if (used.length === 0) return args
  const both = used.find((alias) => Object.hasOwn(given, aliases[alias]!))
  if (both !== undefined) {
    return new InvalidToolParams({
      message: `params.${both}: is the deprecated name of ${aliases[both]}, which is given too; pass ${aliases[both]} only.`
    })
  }
  return Object.fromEntries(Object.entries(given).map(([key, value]) => [Object.hasOwn(aliases, key) ? aliases[key]! : key, value]))
}

/** Turns a Schema decoding failure into a message that names each field and its problem. @category errors */
export const describeSchemaError = (error: Schema.SchemaError): string =>
  formatIssues(error.issue).issues.map((issue) => {
    const path = (issue.path ?? []).map((p) => (typeof p === "object" && p !== null && "key" in p ? p.key : p))
    return path.length === 0 ? `params: ${issue.message}` : `params.${path.join(".")}: ${issue.message}`
  }).join("; ")

/** The JSON Schema of a params struct, flat (definitions inlined as `$defs`), no extra keys allowed. @category getters */
export const paramsJsonSchema = (params: ToolParams): JsonSchemaObject => {
  const doc = Schema.toJsonSchemaDocument(params, { onExcessProperty: "error" })
  const schema = doc.schema as Record<string, unknown>
  const { title: _title, ...rest } = schema
  return Object.keys(doc.definitions).length > 0 ? { ...rest, $defs: doc.definitions } : rest
}

/** The facts a tool is declared with (no behaviour, no derived fields). @category models */
export type ToolFacts = Pick<
  ToolSpec<string, ToolParams, unknown, unknown, unknown>,
  "name" | "displayName" | "description" | "kind" | "shouldDefer" | "alwaysLoad" | "searchHint" | "maxOutputChars" | "truncateKeep" | "serverName"
>

/** The static facts of a tool, with the defaults applied. @category constructors */
export const toolInfo = (spec: ToolFacts, pathFields: ReadonlyArray<string>, parametersJsonSchema: JsonSchemaObject): ToolInfo => ({
  name: spec.name,
  displayName: spec.displayName,
  description: spec.description,
  kind: spec.kind,
  shouldDefer: spec.shouldDefer ?? false,
  alwaysLoad: spec.alwaysLoad ?? false,
  searchHint: spec.searchHint,
  maxOutputChars: spec.maxOutputChars,
  truncateKeep: spec.truncateKeep ?? "both",
  serverName: spec.serverName,
  pathFields,
  parametersJsonSchema
})

/**
 * Defines a tool.
 *
 * @category constructors
 */
export const defineTool = <const Name extends string, P extends ToolParams, A, E, BE = never>(
  spec: ToolSpec<Name, P, A, E, BE>
): Tool<Name, P, A, E, BE> => {
  const decode = Schema.decodeUnknownEffect(spec.params as unknown as Schema.Codec<P["Type"], unknown>)
  const decodeSync = Schema.decodeUnknownExit(spec.params as unknown as Schema.Codec<P["Type"], unknown>)
  const derived = spec[DerivedParamsKey]
  const info = derived !== undefined && derived.params === spec.params
    ? toolInfo(spec, derived.pathFields(), derived.jsonSchema())
    : toolInfo(spec, pathFieldsOf(spec.params), paramsJsonSchema(spec.params))
  const withParams = (params: P["Type"], context: BuildContext | undefined): Effect.Effect<Invocation<P["Type"], A, E>, BuildError | BE> => {
    const problem = spec.validate?.(params)
    if (problem !== undefined) return Effect.fail(new InvalidToolParams({ message: problem }))
    if (spec.resolvesOwnPaths === true || context === undefined || info.pathFields.length === 0) {
      return spec.invoke(params).pipe(
        Effect.flatMap((invocation) => withLocations(invocation, info.pathFields, params, context)),
        Effect.map((invocation) => new makeInvocation<P["Type"], A, E>(info, params, invocation))
      )
    }
    const locate = MUTATOR_KINDS.has(info.kind) ? context.locateWritable ?? context.locate : context.locate
    return Effect.flatMap(resolvePathParams(params, info.pathFields, locate), (resolved) =>
      Effect.map(
        spec.invoke(resolved.params),
        (invocation) =>
          new makeInvocation<P["Type"], A, E>(info, resolved.params, {
            ...invocation,
            locations: invocation.locations ?? resolved.locations
          })
      ))
  }
  const invalid = (error: Schema.SchemaError) => new InvalidToolParams({ message: describeSchemaError(error) })
  const build = (args: unknown, context?: BuildContext): Effect.Effect<Invocation<P["Type"], A, E>, BuildError | BE> => {
    // Params schemas are synchronous, so decode without a fiber on the hot path; a schema that
    // needs effects (an async default, say) falls back to the effectful decoder.
    const given = spec.paramAliases === undefined ? args ?? {} : renameAliases(args ?? {}, spec.paramAliases)
    if (given instanceof InvalidToolParams) return Effect.fail(given)
    const decoded = decodeSync(given, DECODE_OPTIONS)
    if (Exit.isSuccess(decoded)) return withParams(decoded.value, context)
    const error = Cause.findErrorOption(decoded.cause)
    if (error._tag === "Some") return Effect.fail(invalid(error.value))
    return Effect.flatMap(Effect.mapError(decode(given, DECODE_OPTIONS), invalid), (params) => withParams(params, context))
  }
  return {
    ...info,
    name: spec.name,
    params: spec.params,
    toAutoClassifierInput: (params) => spec.toAutoClassifierInput?.(params) ?? "",
    build,
    call: (params, context) => Effect.flatMap(build(params), (invocation) => invocation.execute(context)),
    withName: (name) => defineTool({ ...spec, name })
  }
}

/** The params slot of a JSON-Schema tool: any object (its own validator checks it). @category schemas */
export const JsonSchemaParams = Schema.Struct({})

/** A tool whose params are described by a JSON Schema (an MCP server's tool, say). @category models */
export type JsonSchemaTool<Name extends string, A, E, BE> = Tool<Name, typeof JsonSchemaParams, A, E, BE>

/**
 * Everything needed to define a tool whose params come as a JSON Schema instead of an Effect
 * Schema: the schema is passed to models unchanged, and `validateArgs` checks raw arguments.
 *
 * @category models
 */
export interface JsonSchemaToolSpec<Name extends string, A, E, BE>
  extends Omit<ToolSpec<Name, typeof JsonSchemaParams, A, E, BE>, "params" | "validate" | "invoke" | "toAutoClassifierInput">
{
  readonly parametersJsonSchema: JsonSchemaObject
  /** Checks the arguments; returns a message naming the field and the problem, or undefined. */
  readonly validateArgs: (args: Readonly<Record<string, unknown>>) => Effect.Effect<string | undefined>
  /** Keys of the arguments that are paths. */
  readonly pathFields?: ReadonlyArray<string> | undefined
  readonly toAutoClassifierInput?: ((args: Readonly<Record<string, unknown>>) => string) | undefined
  readonly invoke: (args: Readonly<Record<string, unknown>>) => Effect.Effect<InvocationSpec<A, E>, BE>
}

/**
 * Defines a tool from a JSON Schema. Like {@link defineTool}, `build` is the only way to an
 * invocation: arguments must be an object and pass `validateArgs` first.
 *
 * @category constructors
 */
export const defineJsonSchemaTool = <const Name extends string, A, E, BE = never>(
  spec: JsonSchemaToolSpec<Name, A, E, BE>
): JsonSchemaTool<Name, A, E, BE> => {
  const info = toolInfo(spec, spec.pathFields ?? [], spec.parametersJsonSchema)
  type Args = Readonly<Record<string, unknown>>
  const build = (raw: unknown, context?: BuildContext): Effect.Effect<Invocation<Args, A, E>, BuildError | BE> => {
    const args = raw ?? {}
    if (typeof args !== "object" || Array.isArray(args)) {
      return Effect.fail(new InvalidToolParams({ message: `params: must be an object, got ${JSON.stringify(args)}` }))
    }
    return Effect.flatMap(
      spec.validateArgs(args as Args),
      (problem): Effect.Effect<Invocation<Args, A, E>, BuildError | BE> =>
        problem !== undefined
          ? Effect.fail(new InvalidToolParams({ message: problem }))
          : spec.invoke(args as Args).pipe(
            Effect.flatMap((invocation) => withLocations(invocation, info.pathFields, args, context)),
            Effect.map((invocation) => new makeInvocation<Args, A, E>(info, args as Args, invocation))
          )
    )
  }
  return {
    ...info,
    name: spec.name,
    params: JsonSchemaParams,
    toAutoClassifierInput: (params) => spec.toAutoClassifierInput?.(params as Args) ?? "",
    build,
    call: (params, context) => Effect.flatMap(build(params), (invocation) => invocation.execute(context)),
    withName: (name) => defineJsonSchemaTool({ ...spec, name })
  }
}
