/**
 * The factory behind every error that carries a wire code: one call per code declares the class,
 * its `_tag` (the code in PascalCase: `file_not_found` → `FileNotFound`) and its `code`, both on
 * the class (`FileNotFound.code`) and on each instance (`error.code`).
 *
 * ```ts
 * export class FileNotFound extends toolError<FileNotFound>()("file_not_found") {}
 * new FileNotFound({ message: "…", display: "…" })
 * ```
 *
 * The code is a schema field with a constructor default, so it is data: it survives encoding and
 * a bundler's class renaming, which is why matching goes by `code`, never by class name.
 *
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import * as Schema from "effect/Schema"

/** `file_not_found` → `FileNotFound`: the `_tag` of the error with that wire code. @category models */
export type TagOf<Code extends string> = Code extends `${infer Head}_${infer Rest}` ? `${Capitalize<Head>}${TagOf<Rest>}`
  : Capitalize<Code>

/** The `_tag` of the error with wire code `code` (see {@link TagOf}). @category constructors */
export const tagOf = <const Code extends string>(code: Code): TagOf<Code> =>
  code.split("_").map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("") as TagOf<Code>

/** The schema fields of a coded error: its own fields plus the `code` literal. @category models */
export type CodedFields<Code extends string, Fields extends Schema.Struct.Fields> = Fields & {
  readonly code: Schema.tag<Code>
}

/** A class made by {@link codedError}: a `Schema.TaggedError` that knows its wire code. @category models */
export interface CodedErrorClass<Self, Code extends string, Fields extends Schema.Struct.Fields>
  extends Schema.Class<Self, Schema.TaggedStruct<TagOf<Code>, CodedFields<Code, Fields>>, Cause.YieldableError>
{
  readonly code: Code
}

/**
 * Declares an error class for one wire code, with the given fields (`message` at least, so it
 * logs and reaches the model as text). Pass the class itself as `Self`, as with
 * `Schema.TaggedError`.
 *
 * @category constructors
 */
export const codedError = <Self>() =>
<const Code extends string, const Fields extends Schema.Struct.Fields & { readonly message: Schema.String }>(
  code: Code,
  fields: Fields
): CodedErrorClass<Self, Code, Fields> => {
  const base = Schema.TaggedError<Self>()(tagOf(code), { ...fields, code: Schema.tag(code) })
  // `Self` is still open here, so TypeScript cannot resolve TaggedError's result; the interface
  // above is what it resolves to once the subclass names itself.
  return Object.assign(base, { code }) as unknown as CodedErrorClass<Self, Code, Fields>
}
