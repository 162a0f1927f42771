/**
 * The output room: truncation, persisted outputs and the batch budget (reference §10).
 *
 * Pure functions take plain strings and numbers; `OutputStore` saves full texts; `compose`
 * joins the two for the scheduler's output pipeline.
 *
 * @since 0.1.0
 */
export * from "./budget.js"
export * from "./compose.js"
export * from "./config.js"
export * from "./constants.js"
export * from "./errors.js"
export { ByteRing } from "./ring.js"
export * from "./store.js"
export * from "./stub.js"
export * from "./truncate.js"
export * from "./pipeline.js"
export * from "./stream.js"
export type { OutputFacts, OutputWriter, WriterOptions, WriterOutcome } from "./writer.js"
