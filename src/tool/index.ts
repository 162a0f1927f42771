/**
 * The tool model: how a tool is defined, validated, invoked and described to models.
 *
 * @since 0.1.0
 */
export * from "./annotations.js"
export * from "./codedError.js"
export * from "./declarations.js"
export {
  directoryTarget,
  failureReason,
  isMissing,
  readRefusal,
  restateWriteFailure,
  writeFailureWith,
  writeRefusal,
  writeRefusalWith
} from "./errno.js"
export * from "./errors.js"
export * from "./kind.js"
export * from "./order.js"
export * from "./permission.js"
export * from "./result.js"
export * from "./tool.js"
export * from "./outcome.js"
export * from "./toolDeclaration.js"
export { unescapePath } from "./unescapePath.js"
