/**
 * Configuration of the file tools: defaults, the `FileToolsConfig` reference an embedding program
 * sets, and the environment variables that override it (see `docs/tools-files.md`).
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import {
  DEFAULT_HISTORY_MAX_BYTES,
  DEFAULT_HISTORY_MAX_ENTRIES,
  DEFAULT_HISTORY_MAX_FILE_BYTES
} from "../text/index.js"

/** Everything the file tools can be configured with. @category models */
export interface FileToolsSettings {
  /** Encoding of files the tools create: `utf-8` (default) or `utf-8-bom`. */
  readonly newFileEncoding: "utf-8" | "utf-8-bom"
  /** Encoding assumed for non-UTF-8 files instead of detection (when it round-trips), e.g. `gbk`. */
  readonly legacyEncoding: string | undefined
  /** `ask`: an edit that matched only approximately must be approved by a person, or it is refused. */
  readonly fuzzyEditApproval: "off" | "ask"
  /** Largest file edit / write_file / notebook_edit will load, in bytes. */
  readonly maxEditFileBytes: number
  readonly historyMaxEntries: number
  readonly historyMaxBytes: number
  readonly historyMaxFileBytes: number
}

/** Largest file the mutating tools load by default (256 MiB). @category constants */
export const DEFAULT_MAX_EDIT_FILE_BYTES = 256 * 1024 * 1024

/** The defaults. @category constants */
export const DEFAULT_FILE_TOOLS_SETTINGS: FileToolsSettings = {
  newFileEncoding: "utf-8",
  legacyEncoding: undefined,
  fuzzyEditApproval: "off",
  maxEditFileBytes: DEFAULT_MAX_EDIT_FILE_BYTES,
  historyMaxEntries: DEFAULT_HISTORY_MAX_ENTRIES,
  historyMaxBytes: DEFAULT_HISTORY_MAX_BYTES,
  historyMaxFileBytes: DEFAULT_HISTORY_MAX_FILE_BYTES
}

/** The settings an embedding program gives the file tools; environment variables override them. @category references */
export const FileToolsConfig = Context.Reference<FileToolsSettings>("toolwright/files/FileToolsConfig", {
  defaultValue: () => DEFAULT_FILE_TOOLS_SETTINGS
})

/** The environment variable of each setting. @category constants */
export const FILE_TOOLS_ENV_VARS = {
  newFileEncoding: "TOOLWRIGHT_NEW_FILE_ENCODING",
  legacyEncoding: "TOOLWRIGHT_LEGACY_ENCODING",
  fuzzyEditApproval: "TOOLWRIGHT_FUZZY_EDIT_APPROVAL",
  maxEditFileBytes: "TOOLWRIGHT_MAX_EDIT_FILE_BYTES",
  historyMaxEntries: "TOOLWRIGHT_HISTORY_MAX_ENTRIES",
  historyMaxBytes: "TOOLWRIGHT_HISTORY_MAX_BYTES",
  historyMaxFileBytes: "TOOLWRIGHT_HISTORY_MAX_FILE_BYTES"
} as const

const optional = <A>(config: Config.Config<A>) => Config.option(config)

/**
 * The settings in effect: the {@link FileToolsConfig} reference, each value overridden by its
 * environment variable when set. An invalid variable fails with a `ConfigError` naming it.
 * @category constructors
 */
export const loadFileToolsSettings = Effect.gen(function*() {
  const base = yield* FileToolsConfig
  const env = FILE_TOOLS_ENV_VARS
  const newFileEncoding = yield* optional(Config.Literals(["utf-8", "utf-8-bom"], env.newFileEncoding))
  const legacyEncoding = yield* optional(Config.String(env.legacyEncoding))
  const fuzzyEditApproval = yield* optional(Config.Literals(["off", "ask"], env.fuzzyEditApproval))
  const positive = (name: string) =>
    optional(Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)), name))
  const maxEditFileBytes = yield* positive(env.maxEditFileBytes)
  const historyMaxEntries = yield* positive(env.historyMaxEntries)
  const historyMaxBytes = yield* positive(env.historyMaxBytes)
  const historyMaxFileBytes = yield* positive(env.historyMaxFileBytes)
  const or = <A>(o: Option.Option<A>, fallback: A): A => Option.getOrElse(o, () => fallback)
  return {
    newFileEncoding: or(newFileEncoding, base.newFileEncoding),
    legacyEncoding: Option.isSome(legacyEncoding) && legacyEncoding.value.trim() !== ""
      ? legacyEncoding.value.trim()
      : base.legacyEncoding,
    fuzzyEditApproval: or(fuzzyEditApproval, base.fuzzyEditApproval),
    maxEditFileBytes: or(maxEditFileBytes, base.maxEditFileBytes),
    historyMaxEntries: or(historyMaxEntries, base.historyMaxEntries),
    historyMaxBytes: or(historyMaxBytes, base.historyMaxBytes),
    historyMaxFileBytes: or(historyMaxFileBytes, base.historyMaxFileBytes)
  } satisfies FileToolsSettings
})
