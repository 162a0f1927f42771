/**
 * Terminal output as plain text, incrementally: UTF-8 decoding across chunk boundaries, ANSI
 * escape sequences removed (CSI, OSC, DCS/SOS/PM/APC strings, two- and three-byte escapes, the
 * C1 forms), `\r\n` → `\n`, a bare `\r` either rewinds the current line (a progress bar keeps its
 * last state) or becomes a newline, backspace erases, other control characters are dropped.
 *
 * @since 0.1.0
 */

/** What a bare carriage return does. @category models */
export type CarriageReturnMode = "overwrite" | "newline"

/** Longest partial line held back (waiting for its newline) before it is committed anyway. @category constants */
export const MAX_PENDING_LINE_CHARS = 64 * 1024

const enum State {
  Normal,
  Escape,
  EscapeIntermediate,
  Csi,
  Osc,
  OscEscape,
  Str,
  StrEscape
}

// Anything the fast path cannot pass through unchanged.
const SPECIAL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/
// The same, but `\r\n` (how a PTY ends lines) is allowed: it only becomes `\n`.
const SPECIAL_BUT_CRLF = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/

/**
 * Turns chunks of terminal bytes into plain text. `push` returns the text committed by the chunk
 * (whole lines, or a partial line longer than {@link MAX_PENDING_LINE_CHARS}); the current
 * partial line is `pending` until a newline or `end()`.
 *
 * @category decoding
 */
export class PlainTextDecoder {
  readonly #decoder = new TextDecoder("utf-8")
  readonly #cr: CarriageReturnMode
  #state: State = State.Normal
  #line = ""
  #sawCr = false
  // The last byte pushed was not ASCII: the UTF-8 decoder may hold part of a character.
  #maybePartial = false
  // Finds the next special character from its `lastIndex` (one per decoder: it is stateful).
  readonly #nextSpecial = new RegExp(SPECIAL.source, "g")

  constructor(options: { readonly carriageReturn?: CarriageReturnMode } = {}) {
    this.#cr = options.carriageReturn ?? "overwrite"
  }

  /** The current partial line (not yet committed). */
  get pending(): string {
    return this.#line
  }

  /** True when no escape sequence, carriage return or partial UTF-8 character is (or may be) pending. */
  get isClean(): boolean {
    return this.#state === State.Normal && !this.#sawCr && !this.#maybePartial
  }

  /** Takes the partial line out (the caller writes it), leaving the decoder at a line start. */
  takePending(): string {
    const line = this.#line
    this.#line = ""
    return line
  }

  /** Decodes a chunk of bytes. */
  push(bytes: Uint8Array): string {
    if (bytes.length === 0) return ""
    this.#maybePartial = bytes[bytes.length - 1]! >= 0x80
    return this.pushText(this.#decoder.decode(bytes, { stream: true }))
  }

  /** Processes already-decoded text. */
  pushText(text: string): string {
    if (this.#state === State.Normal && !this.#sawCr) {
      if (!SPECIAL.test(text)) return this.#plainRun(text) + this.#overflow()
      if (!SPECIAL_BUT_CRLF.test(text)) return this.#plainRun(text.replaceAll("\r\n", "\n")) + this.#overflow()
    }
    let out = ""
    for (let i = 0; i < text.length; i++) {
      // Between special characters the text passes through a run at a time.
      if (this.#state === State.Normal && !this.#sawCr) {
        this.#nextSpecial.lastIndex = i
        const next = this.#nextSpecial.exec(text)?.index ?? text.length
        if (next > i) {
          out += this.#plainRun(text.slice(i, next))
          i = next
          if (i === text.length) break
        }
      }
      const c = text.charCodeAt(i)
      switch (this.#state) {
        case State.Normal:
          if (this.#sawCr) {
            this.#sawCr = false
            if (c === 10) {
              out += `${this.#line}\n`
              this.#line = ""
              continue
            }
            if (this.#cr === "newline") {
              out += `${this.#line}\n`
              this.#line = ""
            } else this.#line = ""
          }
          if (c === 10) {
            out += `${this.#line}\n`
            this.#line = ""
          } else if (c === 13) this.#sawCr = true
          else if (c === 27) this.#state = State.Escape
          else if (c === 0x9b) this.#state = State.Csi
          else if (c === 0x9d) this.#state = State.Osc
          else if (c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) this.#state = State.Str
          else if (c === 8) this.#line = this.#line.slice(0, -1)
          else if (c === 9 || (c >= 32 && c !== 127 && !(c >= 0x80 && c <= 0x9f))) this.#line += text[i]
          break
        case State.Escape:
          if (c === 91) this.#state = State.Csi // [
          else if (c === 93) this.#state = State.Osc // ]
          else if (c === 80 || c === 88 || c === 94 || c === 95) this.#state = State.Str // P X ^ _
          else if (c >= 0x20 && c <= 0x2f) this.#state = State.EscapeIntermediate
          else this.#state = State.Normal
          break
        case State.EscapeIntermediate:
          if (!(c >= 0x20 && c <= 0x2f)) this.#state = State.Normal
          break
        case State.Csi:
          if (c >= 0x40 && c <= 0x7e) this.#state = State.Normal
          else if (c === 27) this.#state = State.Escape
          break
        case State.Osc:
          if (c === 7 || c === 0x9c) this.#state = State.Normal
          else if (c === 27) this.#state = State.OscEscape
          break
        case State.OscEscape:
          this.#state = c === 92 ? State.Normal : State.Osc
          break
        case State.Str:
          if (c === 0x9c) this.#state = State.Normal
          else if (c === 27) this.#state = State.StrEscape
          break
        case State.StrEscape:
          this.#state = c === 92 ? State.Normal : State.Str
          break
      }
    }
    return out + this.#overflow()
  }

  /** Commits the partial line (for streams that must show a prompt without its newline). */
  flushPending(): string {
    const out = this.#line
    this.#line = ""
    if (this.#sawCr && this.#cr === "newline") {
      this.#sawCr = false
      return `${out}\n`
    }
    return out
  }

  /** Ends the stream: flushes the decoder and the partial line. */
  end(): string {
    this.#maybePartial = false
    const rest = this.pushText(this.#decoder.decode())
    const line = this.#line
    this.#line = ""
    this.#sawCr = false
    return rest + line
  }

  /** Appends text without special characters; returns the lines it completes. */
  #plainRun(text: string): string {
    const nl = text.lastIndexOf("\n")
    if (nl === -1) {
      this.#line += text
      return ""
    }
    const out = this.#line + text.slice(0, nl + 1)
    this.#line = text.slice(nl + 1)
    return out
  }

  #overflow(): string {
    if (this.#line.length <= MAX_PENDING_LINE_CHARS) return ""
    const out = this.#line
    this.#line = ""
    return out
  }
}

/** Plain text of a whole terminal string (see {@link PlainTextDecoder}). @category decoding */
export const toPlainText = (text: string, options: { readonly carriageReturn?: CarriageReturnMode } = {}): string => {
  const decoder = new PlainTextDecoder(options)
  return decoder.pushText(text) + decoder.end()
}

/** Removes C0/C1 control characters except tab and newline (for notification text). @category decoding */
export const stripControlCharacters = (text: string): string => text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, "")
