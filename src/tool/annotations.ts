/**
 * Schema key annotations that tools use to describe their params: which params are file paths.
 *
 * A path param is declared once, on the Schema key, so the scheduler finds every path a call touches
 * without a hand-kept list of tool names.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

declare module "effect/Schema" {
  namespace Annotations {
    interface Annotations {
      /** The key holds a file system path (absolute, or relative to the first workspace root). */
      readonly toolwrightPath?: boolean | undefined
    }
  }
}

/**
 * A string param that names a file or directory. The key annotation marks it for path activation and
 * the workspace boundary.
 *
 * @category constructors
 */
export const PathParam = (description: string) =>
  Schema.String.annotate({ description }).check(Schema.isNonEmpty()).annotateKey({ toolwrightPath: true })

/** Marks any schema's key as a path param. @category combinators */
export const asPathKey = <S extends Schema.Top>(schema: S): S["Rebuild"] =>
  schema.annotateKey({ toolwrightPath: true })

/** The names of the struct keys annotated as paths, in declaration order. @category getters */
export const pathFieldsOf = (schema: Schema.Struct<Schema.Struct.Fields>): ReadonlyArray<string> =>
  Object.entries(schema.fields)
    .filter(([, field]) => Schema.resolveAnnotationsKey(field)?.toolwrightPath === true)
    .map(([key]) => key)
