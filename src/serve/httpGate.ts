/**
 * A transport in front of an HTTP session's transport that holds the client's requests while the
 * session is being built (after `initialized`, once its roots are known), then lets them through in
 * order, or answers them with the reason the session could not start. `initialize`, `ping`,
 * notifications and responses (the client's answer to `roots/list`) always pass.
 *
 * @since 0.1.0
 */
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js"
import { ErrorCode, type JSONRPCMessage, type MessageExtraInfo, type RequestId } from "@modelcontextprotocol/sdk/types.js"

type Held = { readonly message: JSONRPCMessage; readonly extra: MessageExtraInfo | undefined }

const ALWAYS_PASS = new Set(["initialize", "ping"])

const heldRequestId = (message: JSONRPCMessage) =>
  "method" in message && "id" in message && !ALWAYS_PASS.has(message.method) ? message.id : undefined

/** A transport that holds requests until the session behind it is ready. @category transports */
export class GatedTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined

  readonly #inner: Transport
  #state: { readonly _tag: "holding"; readonly held: Array<Held> } | { readonly _tag: "open" } | { readonly _tag: "failed"; readonly message: string } = {
    _tag: "holding",
    held: []
  }

  #onFirstHeld: ((id: RequestId) => void) | undefined
  /**
   * The id of the first request held. A server request sent in relation to it travels on that
   * request's open response stream, which the client is sure to be reading (a message sent on no
   * stream before the client opens its GET stream would be lost).
   */
  readonly firstHeld: Promise<RequestId>

  constructor(inner: Transport) {
    this.#inner = inner
    this.firstHeld = new Promise((resolve) => (this.#onFirstHeld = resolve))
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version)
  }

  start(): Promise<void> {
    this.#inner.onclose = () => this.onclose?.()
    this.#inner.onerror = (error) => this.onerror?.(error)
    this.#inner.onmessage = (message, extra) => this.#receive(message, extra)
    return this.#inner.start()
  }

  #receive(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    const id = heldRequestId(message)
    if (id === undefined || this.#state._tag === "open") return this.onmessage?.(message, extra)
    if (this.#state._tag === "holding") {
      this.#state.held.push({ message, extra })
      return this.#onFirstHeld?.(id)
    }
    this.#refuse(id, this.#state.message)
  }

  #refuse(id: string | number, message: string): void {
    this.#inner.send({ jsonrpc: "2.0", id, error: { code: ErrorCode.InvalidRequest, message } }, { relatedRequestId: id })
      .catch((error) => this.onerror?.(error instanceof Error ? error : new Error(String(error))))
  }

  /** The session is ready: held requests go through, in the order they came. */
  open(): void {
    if (this.#state._tag !== "holding") return
    const held = this.#state.held
    this.#state = { _tag: "open" }
    for (const { extra, message } of held) this.onmessage?.(message, extra)
  }

  /** The session could not start: held and later requests are answered with `message`. */
  fail(message: string): void {
    if (this.#state._tag !== "holding") return
    const held = this.#state.held
    this.#state = { _tag: "failed", message }
    for (const { message: request } of held) this.#refuse(heldRequestId(request)!, message)
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(message, options)
  }

  close(): Promise<void> {
    return this.#inner.close()
  }
}
