/**
 * Whether a run of output bytes is already plain text: only tab, newline, printable ASCII and `\r`
 * directly followed by `\n` (how a PTY ends its lines). Such bytes decode to themselves once the
 * `\r` are dropped, so the capture can store them without decoding. This test runs over every byte
 * of a flood, so it is a 16-bytes-at-a-time WebAssembly SIMD loop (~0.1 ns a byte; a regular
 * expression takes ~2 ns a byte here), and so is dropping the `\r`; a regular-expression fallback
 * runs where WebAssembly is unavailable.
 *
 * @since 0.1.0
 */

/** Bytes scanned per call of the WebAssembly loop (its memory holds one window and a lookahead). @category constants */
export const SCAN_WINDOW_BYTES = 64 * 1024

// v128.const with one byte repeated.
const splat = (byte: number): ReadonlyArray<number> => [0xfd, 0x0c, ...Array<number>(16).fill(byte)]

/*
 * (func $scan (param $len i32) (result i32)   ;; $len: a multiple of 16
 *   (local $i i32) (local $bad v128) (local $v v128) (local $cr v128) (local $crs v128)
 *   loop while $i < $len:
 *     $v = v128.load($i)
 *     $cr = $v == \r
 *     ok = (($v - 0x20) <u 0x5f) | ($v == \t) | ($v == \n) | ($cr & (v128.load($i + 1) == \n))
 *     $bad |= ~ok ; $crs |= $cr ; $i += 16
 *   return any_true($bad) ? 0 : 1 + any_true($crs))   ;; 0: not plain, 1: plain, 2: plain with \r
 */
const SCAN_BODY: ReadonlyArray<number> = [
  0x02, 0x01, 0x7f, 0x04, 0x7b, // locals: 1 × i32 ($i = 1), 4 × v128 ($bad = 2, $v = 3, $cr = 4, $crs = 5)
  0x02, 0x40, 0x03, 0x40, // block, loop
  0x20, 0x01, 0x20, 0x00, 0x4f, 0x0d, 0x01, // br_if (i >= len) out
  0x20, 0x01, 0xfd, 0x00, 0x00, 0x00, 0x22, 0x03, // v = v128.load(i)
  ...splat(0x20), 0xfd, 0x71, ...splat(0x5f), 0xfd, 0x26, // i8x16.sub, i8x16.lt_u: printable
  0x20, 0x03, ...splat(0x09), 0xfd, 0x23, 0xfd, 0x50, // | v == \t (i8x16.eq, v128.or)
  0x20, 0x03, ...splat(0x0a), 0xfd, 0x23, 0xfd, 0x50, // | v == \n
  0x20, 0x03, ...splat(0x0d), 0xfd, 0x23, 0x22, 0x04, // cr = v == \r
  0x20, 0x01, 0xfd, 0x00, 0x00, 0x01, ...splat(0x0a), 0xfd, 0x23, 0xfd, 0x4e, // & v128.load offset=1 (i) == \n (v128.and)
  0xfd, 0x50, // | ok
  0xfd, 0x4d, 0x20, 0x02, 0xfd, 0x50, 0x21, 0x02, // bad |= v128.not(ok)
  0x20, 0x05, 0x20, 0x04, 0xfd, 0x50, 0x21, 0x05, // crs |= cr
  0x20, 0x01, 0x41, 0x10, 0x6a, 0x21, 0x01, 0x0c, 0x00, // i += 16; continue
  0x0b, 0x0b, // end loop, end block
  0x20, 0x02, 0xfd, 0x53, // v128.any_true(bad)
  0x04, 0x7f, 0x41, 0x00, // if (result i32) 0
  0x05, 0x20, 0x05, 0xfd, 0x53, 0x41, 0x01, 0x6a, // else any_true(crs) + 1
  0x0b, 0x0b // end if, end function
]

/*
 * (func $compact (param $len i32) (result i32)   ;; removes every \r in place; returns the new length
 *   (local $i i32) (local $o i32) (local $b i32) (local $end i32) (local $v v128)
 *   loop while $i < $len:
 *     $v = v128.load($i)
 *     if any_true($v == \r): byte by byte to $i + 16: store8($o, $b = load8_u($i)); $o += ($b != \r); $i++
 *     else: v128.store($o, $v); $o += 16; $i += 16
 *   return $o)
 */
const COMPACT_BODY: ReadonlyArray<number> = [
  0x02, 0x04, 0x7f, 0x01, 0x7b, // locals: 4 × i32 ($i = 1, $o = 2, $b = 3, $end = 4), 1 × v128 ($v = 5)
  0x02, 0x40, 0x03, 0x40, // block, loop
  0x20, 0x01, 0x20, 0x00, 0x4f, 0x0d, 0x01, // br_if (i >= len) out
  0x20, 0x01, 0xfd, 0x00, 0x00, 0x00, 0x22, 0x05, // v = v128.load(i)
  ...splat(0x0d), 0xfd, 0x23, 0xfd, 0x53, // v128.any_true(v == \r)
  0x04, 0x40, // if
  0x20, 0x01, 0x41, 0x10, 0x6a, 0x21, 0x04, // end = i + 16
  0x02, 0x40, 0x03, 0x40, // block, loop
  0x20, 0x01, 0x20, 0x04, 0x4f, 0x0d, 0x01, // br_if (i >= end) out
  0x20, 0x02, 0x20, 0x01, 0x2d, 0x00, 0x00, 0x22, 0x03, 0x3a, 0x00, 0x00, // i32.store8(o, b = i32.load8_u(i))
  0x20, 0x02, 0x20, 0x03, 0x41, 0x0d, 0x47, 0x6a, 0x21, 0x02, // o += (b != \r)
  0x20, 0x01, 0x41, 0x01, 0x6a, 0x21, 0x01, 0x0c, 0x00, // i++; continue
  0x0b, 0x0b, // end loop, end block
  0x05, // else
  0x20, 0x02, 0x20, 0x05, 0xfd, 0x0b, 0x00, 0x00, // v128.store(o, v)
  0x20, 0x02, 0x41, 0x10, 0x6a, 0x21, 0x02, // o += 16
  0x20, 0x01, 0x41, 0x10, 0x6a, 0x21, 0x01, // i += 16
  0x0b, // end if
  0x0c, 0x00, // continue
  0x0b, 0x0b, // end loop, end block
  0x20, 0x02, 0x0b // o
]

const leb128 = (n: number): Array<number> => {
  const out: Array<number> = []
  do {
    let byte = n & 0x7f
    n >>>= 7
    if (n !== 0) byte |= 0x80
    out.push(byte)
  } while (n !== 0)
  return out
}

const section = (id: number, bytes: ReadonlyArray<number>): Array<number> => [id, ...leb128(bytes.length), ...bytes]
const name = (s: string): Array<number> => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))]

/** The module: one memory of two 64 KiB pages (a window, its padding and lookahead), scan and compact. */
const moduleBytes = (): Uint8Array =>
  new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // \0asm, version 1
    ...section(1, [0x01, 0x60, 0x01, 0x7f, 0x01, 0x7f]), // type 0: (i32) -> i32
    ...section(3, [0x02, 0x00, 0x00]), // two functions of type 0
    ...section(5, [0x01, 0x00, 0x02]), // memory: min 2 pages
    ...section(7, [0x03, ...name("memory"), 0x02, 0x00, ...name("scan"), 0x00, 0x00, ...name("compact"), 0x00, 0x01]),
    ...section(10, [0x02, ...leb128(SCAN_BODY.length), ...SCAN_BODY, ...leb128(COMPACT_BODY.length), ...COMPACT_BODY])
  ])

/**
 * Returns the bytes when they are plain text already — only tab, newline, printable ASCII, and
 * `\r` directly followed by `\n` — with every `\r` removed; `undefined` when they are not. The
 * result is the input itself when it has no `\r`, else possibly a view of the scanner's scratch
 * memory, valid until its next call.
 *
 * @category models
 */
export type PlainScanner = (bytes: Uint8Array) => Uint8Array | undefined

const NOT_PLAIN = /[^\t\n\r\x20-\x7e]|\r(?!\n)/

const latin1 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1")

/**
 * Whether bytes are plain text as {@link PlainScanner} defines it (tab, newline, printable ASCII,
 * `\r` only before `\n`): nothing in them styles text or moves the cursor.
 * @category models
 */
export const isPlainText = (bytes: Uint8Array): boolean => !NOT_PLAIN.test(latin1(bytes))

/** The regular-expression scanner (where WebAssembly is unavailable, and for inputs with `\r` longer than a window). @category scanning */
export const plainByRegExp: PlainScanner = (bytes) => {
  const text = latin1(bytes)
  if (NOT_PLAIN.test(text)) return undefined
  return bytes.indexOf(13) === -1 ? bytes : Buffer.from(text.replaceAll("\r\n", "\n"), "latin1")
}

/** What this file needs of the WebAssembly global (the project's `lib` has no DOM types). */
interface WasmApi {
  readonly Module: new(bytes: Uint8Array) => CompiledScan
  readonly Instance: new(module: CompiledScan) => { readonly exports: Readonly<Record<string, unknown>> }
}

/** A compiled scan module. */
interface CompiledScan {
  readonly _compiledScan?: never
}

const wasmApi = (): WasmApi | undefined => (globalThis as { readonly WebAssembly?: WasmApi }).WebAssembly

const compile = (): CompiledScan | undefined => {
  try {
    const api = wasmApi()
    return api === undefined ? undefined : new api.Module(moduleBytes())
  } catch {
    return undefined // no WebAssembly (say, --jitless) or no SIMD
  }
}

/** The compiled module, once per process (immutable once made). */
const compiledModule: () => CompiledScan | undefined = (() => {
  let made = false
  let module: CompiledScan | undefined
  return () => {
    if (!made) {
      module = compile()
      made = true
    }
    return module
  }
})()

/**
 * Chunks shorter than this go through the regular expression: for a few bytes it is as fast, and
 * a short command's output (most calls) then never pays for an instance and its memory.
 * @category constants
 */
export const SMALL_CHUNK_BYTES = 4096

/**
 * A new scanner with its own WebAssembly memory (128 KiB, made at its first chunk of
 * {@link SMALL_CHUNK_BYTES} or more), or the regular-expression scanner when WebAssembly cannot
 * run (or `webAssembly` is false). One per capture: the memory is scratch space, never shared.
 * `smallChunkBytes` (tests: 0 to scan everything on WebAssembly) is {@link SMALL_CHUNK_BYTES}.
 *
 * @category constructors
 */
export const makePlainScanner = (webAssembly = true, smallChunkBytes = SMALL_CHUNK_BYTES): PlainScanner => {
  const api = wasmApi()
  const module = webAssembly ? compiledModule() : undefined
  if (module === undefined || api === undefined) return plainByRegExp
  let scanner: PlainScanner | undefined
  return (bytes) => (bytes.length < smallChunkBytes ? plainByRegExp(bytes) : (scanner ??= wasmScanner(api, module))(bytes))
}

const wasmScanner = (api: WasmApi, module: CompiledScan): PlainScanner => {
  const instance = new api.Instance(module)
  const scan = instance.exports["scan"] as (len: number) => number
  const compact = instance.exports["compact"] as (len: number) => number
  const memory = new Uint8Array((instance.exports["memory"] as { readonly buffer: ArrayBuffer }).buffer)
  // Copies bytes[start, end) in, pads to 16 with spaces plus a lookahead; returns the padded length.
  const load = (bytes: Uint8Array, start: number, end: number): number => {
    const length = end - start
    const padded = (length + 15) & ~15
    memory.set(bytes.subarray(start, end), 0)
    memory.fill(0x20, length, padded + 16)
    // A `\r` closing the window looks at the next byte (only the last window can be shorter than
    // SCAN_WINDOW_BYTES, a multiple of 16, so this byte is never scanned as part of the window).
    if (end < bytes.length) memory[length] = bytes[end]!
    return padded
  }
  return (bytes) => {
    if (bytes.length > SCAN_WINDOW_BYTES) {
      let crs = false
      for (let start = 0; start < bytes.length; start += SCAN_WINDOW_BYTES) {
        const found = scan(load(bytes, start, Math.min(bytes.length, start + SCAN_WINDOW_BYTES)))
        if (found === 0) return undefined
        crs ||= found === 2
      }
      return crs ? plainByRegExp(bytes) : bytes
    }
    const padded = load(bytes, 0, bytes.length)
    const found = scan(padded)
    if (found !== 2) return found === 0 ? undefined : bytes
    // The padding holds no `\r`: it is still there, at the end.
    return memory.subarray(0, compact(padded) - (padded - bytes.length))
  }
}
