// Types for scripts/surfaces.mjs (used by test/architecture/surfaces.test.ts).
import type { SourceFile } from "./floors.mjs"
export declare const planSurfaces: (files: ReadonlyArray<SourceFile>) => {
  /** path (relative to src/) → new text, for every file that changes (new index.ts files included) */
  readonly changed: Map<string, string>
  readonly clashes: Array<string>
  readonly skipped: Array<string>
}
export declare const renderNamed: (
  keyword: "import" | "export",
  names: ReadonlyArray<{ readonly name: string; readonly alias?: string; readonly typeOnly: boolean }>,
  specifier: string
) => string
