/**
 * The terminal screen of a PTY command, for people: the raw output bytes (escape sequences and
 * all) are kept in a bounded window — copied into a ring, no decoding — replayed into an
 * `@xterm/headless` terminal when a view is needed, and the buffer is serialized back to ANSI
 * (colours and styles, no cursor tricks). Replaying on demand keeps memory and the cost per byte
 * bounded however much the command prints; only the last window (256 KiB) shapes the screen.
 *
 * @since 0.1.0
 */
import { createRequire } from "node:module"
import * as Effect from "effect/Effect"
import type { IBufferCell, Terminal as XtermTerminal } from "@xterm/headless"
import { ByteRing } from "../../output/index.js"
import { isPlainText } from "./plainScan.js"

/** Raw output bytes kept for replay. @category constants */
export const SCREEN_WINDOW_BYTES = 256 * 1024

/** Terminal size and scrollback. @category models */
export interface ScreenSize {
  readonly cols: number
  readonly rows: number
  readonly scrollback: number
}

/** Default terminal size of PTY commands. @category constants */
export const DEFAULT_SCREEN_SIZE: ScreenSize = { cols: 120, rows: 30, scrollback: 1000 }

type TerminalConstructor = new (options: { cols: number; rows: number; scrollback: number; allowProposedApi: boolean }) => XtermTerminal

const loadTerminal = (): TerminalConstructor => {
  const require = createRequire(import.meta.url)
  return (require("@xterm/headless") as { Terminal: TerminalConstructor }).Terminal
}

interface Style {
  readonly fg: string
  readonly bg: string
  readonly flags: string
}

const colorCode = (cell: IBufferCell, layer: "fg" | "bg"): string => {
  const base = layer === "fg" ? 30 : 40
  if (layer === "fg" ? cell.isFgDefault() : cell.isBgDefault()) return ""
  const value = layer === "fg" ? cell.getFgColor() : cell.getBgColor()
  if (layer === "fg" ? cell.isFgRGB() : cell.isBgRGB()) {
    return `${base + 8};2;${(value >> 16) & 255};${(value >> 8) & 255};${value & 255}`
  }
  if (value < 8) return String(base + value)
  if (value < 16) return String(base + 60 + value - 8)
  return `${base + 8};5;${value}`
}

const styleOf = (cell: IBufferCell): Style => ({
  fg: colorCode(cell, "fg"),
  bg: colorCode(cell, "bg"),
  flags: [
    cell.isBold() ? "1" : "",
    cell.isDim() ? "2" : "",
    cell.isItalic() ? "3" : "",
    cell.isUnderline() ? "4" : "",
    cell.isInverse() ? "7" : "",
    cell.isInvisible() ? "8" : "",
    cell.isStrikethrough() ? "9" : ""
  ].filter((f) => f !== "").join(";")
})

const sgr = (style: Style): string => {
  const codes = [style.flags, style.fg, style.bg].filter((c) => c !== "")
  return codes.length === 0 ? "" : `\x1b[${codes.join(";")}m`
}

const DEFAULT_STYLE: Style = { fg: "", bg: "", flags: "" }

const sameStyle = (a: Style, b: Style) => a.fg === b.fg && a.bg === b.bg && a.flags === b.flags

/** Serializes the terminal buffer (scrollback and screen) to ANSI text; trailing blank lines dropped. */
const serialize = (terminal: XtermTerminal): string => {
  const buffer = terminal.buffer.active
  const lines: Array<string> = []
  let cell: IBufferCell | undefined
  for (let y = 0; y < buffer.length; y++) {
    const line = buffer.getLine(y)
    if (!line) continue
    let out = ""
    let current: Style = { fg: "", bg: "", flags: "" }
    let pendingSpaces = ""
    const width = line.translateToString(true).length === 0 ? 0 : line.length
    for (let x = 0; x < width; x++) {
      cell = line.getCell(x, cell)
      if (!cell || cell.getWidth() === 0) continue
      const chars = cell.getChars() || " "
      // A blank without background or inverse shows nothing of its style.
      if (chars === " " && cell.isBgDefault() && !cell.isInverse()) {
        pendingSpaces += " "
        continue
      }
      const style = cell.isAttributeDefault() ? DEFAULT_STYLE : styleOf(cell)
      if (!sameStyle(style, current)) {
        out += (current.fg || current.bg || current.flags ? "\x1b[0m" : "") + pendingSpaces + sgr(style)
        pendingSpaces = ""
        current = style
      }
      out += pendingSpaces + chars
      pendingSpaces = ""
    }
    if (current.fg || current.bg || current.flags) out += "\x1b[0m"
    if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += out
    else lines.push(out)
  }
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop()
  return lines.join("\n")
}

/**
 * A PTY command's screen. `push` is cheap (it keeps the chunk); `render` replays the window into a
 * fresh headless terminal and returns the ANSI text.
 *
 * @category screen
 */
export class Screen {
  readonly #size: ScreenSize
  #window: ByteRing | undefined
  #terminal: XtermTerminal | undefined

  constructor(size: ScreenSize = DEFAULT_SCREEN_SIZE) {
    this.#size = size
  }

  /** Whether output older than the window was dropped from the replay. */
  get truncated(): boolean {
    return (this.#window?.total ?? 0) > SCREEN_WINDOW_BYTES
  }

  /**
   * Whether the screen would show more than the plain text: the window holds an escape sequence,
   * a control character, a lone `\r` or a non-ASCII byte. When it does not, the text is the screen
   * (the terminal would only expand its tabs and drop trailing blanks), and {@link render}, which
   * replays the window into a new terminal, can be skipped.
   */
  get styled(): boolean {
    return this.#window !== undefined && !isPlainText(this.#window.bytes())
  }

  /** Appends raw terminal output (a string is taken as its UTF-8 bytes). */
  push(output: Uint8Array | string): void {
    const chunk = typeof output === "string" ? Buffer.from(output, "utf8") : output
    if (chunk.length === 0) return
    this.#window ??= new ByteRing(SCREEN_WINDOW_BYTES)
    this.#window.push(chunk)
  }

  /**
   * What to replay: the window from the start of its last `rows + scrollback` lines (older lines
   * would scroll out of the buffer anyway), at a character boundary.
   */
  #replay(): string {
    if (this.#window === undefined) return ""
    const all = this.#window.bytes()
    let start = all.length
    for (let lines = 0; lines < this.#size.rows + this.#size.scrollback && start > 0; lines++) {
      start = start >= 2 ? all.lastIndexOf(10, start - 2) + 1 : 0
    }
    if (start > 0 || this.truncated) while (start < all.length && (all[start]! & 0xc0) === 0x80) start++
    return all.toString("utf8", start)
  }

  /** Replays the window and serializes the screen to ANSI. */
  readonly render: Effect.Effect<string> = Effect.suspend(() => {
    const data = this.#replay()
    return Effect.callback<string>((resume) => {
      this.#terminal?.dispose()
      const Terminal = loadTerminal()
      const terminal = new Terminal({ ...this.#size, allowProposedApi: true })
      this.#terminal = terminal
      terminal.write(data, () => resume(Effect.sync(() => serialize(terminal))))
    })
  })

  /** Frees the terminal. */
  dispose(): void {
    this.#terminal?.dispose()
    this.#terminal = undefined
  }
}
