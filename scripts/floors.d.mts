// Types for scripts/floors.mjs (used by test/architecture/floors.test.ts and scripts/surfaces.mjs).
export interface Violation {
  readonly file: string
  readonly line: number
  readonly rule: "upward-import" | "sideways-import" | "tool-room-import" | "room-cycle" | "file-cycle" | "deep-import" | "unknown-room"
  readonly message: string
}
export interface SourceFile {
  readonly path: string
  readonly source: string
}
export interface ImportRecord {
  readonly specifier: string
  readonly line: number
  readonly endLine: number
  readonly start: number
  readonly end: number
  readonly kind: "import" | "export" | "side-effect" | "dynamic"
  readonly dynamic: boolean
  readonly typeOnly: boolean
  readonly names: ReadonlyArray<{ readonly name: string; readonly alias: string; readonly typeOnly: boolean }>
  readonly namespace: string | undefined
  readonly hasDefault: boolean
  readonly starExport: boolean
  readonly exception: string | undefined
}
export declare const FLOORS: ReadonlyArray<ReadonlyArray<string>>
export declare const TOOL_ROOMS: ReadonlySet<string>
export declare const FLOOR_OF: ReadonlyMap<string, number>
export declare const repoRoot: string
export declare const parseImports: (fileName: string, source: string) => Array<ImportRecord>
export declare const roomOf: (rel: string) => string | undefined
export declare const resolveSpecifier: (fromRel: string, specifier: string) => string | undefined
export declare const checkFloors: (files: ReadonlyArray<SourceFile>) => Array<Violation>
export declare const loadSourceTree: (srcDir: string) => Array<SourceFile>
