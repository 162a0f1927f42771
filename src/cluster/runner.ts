/**
 * A runner process: it hosts `ToolSession` entities for the shards it holds, talks to the other
 * runners and fronts over sockets, and keeps the cluster's membership and shard locks in
 * PostgreSQL (shard locks as rows). `toolwright runner --sql URL` runs {@link layer}.
 *
 * @since 0.3.0
 */
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { RunnerAddress } from "effect/cluster"
import * as Entity from "./entity.js"

/** The default port a runner listens on (Effect cluster's default). @category constants */
export const DEFAULT_RUNNER_PORT = 34431

/** How a runner joins the cluster and which sessions it can host. @category models */
export interface RunnerOptions extends Entity.RunnerSessionOptions {
  /** The PostgreSQL URL shared by every runner and front of the cluster. */
  readonly sqlUrl: string
  /** The host other runners and fronts reach this runner at (default `localhost`). */
  readonly host?: string | undefined
  /** The port (default {@link DEFAULT_RUNNER_PORT}). */
  readonly port?: number | undefined
  /** Listen on this host instead of `host` (e.g. `0.0.0.0`). */
  readonly listenHost?: string | undefined
  /**
   * The workspace groups this runner mounts (default `["default"]`): a session `NAME@GROUP`
   * only ever runs on a runner that lists `GROUP`, since its files live on that machine.
   */
  readonly groups?: ReadonlyArray<string> | undefined
  /** Shard lock expiry: how long a runner that vanished keeps its sessions (default 35 s). */
  readonly shardLockExpiration?: number | undefined
}

/** The PostgreSQL client of a runner or front. @category layers */
export const sqlLayer = (url: string) => PgClient.layer({ url: Redacted.make(url), applicationName: "toolwright-cluster" })

/**
 * A runner: the session entity on a socket sharding layer over PostgreSQL. Launch it with
 * `Layer.launch`; interrupting it (SIGTERM, SIGINT) closes every session it hosts (their read
 * evidence is saved, their processes end) and releases its shards to the other runners.
 * @category layers
 */
export const layer = (options: RunnerOptions) => {
  const host = options.host ?? "localhost"
  const port = options.port ?? DEFAULT_RUNNER_PORT
  const groups = options.groups !== undefined && options.groups.length > 0 ? [...options.groups] : ["default"]
  return Entity.layer(options).pipe(
    Layer.provide(NodeClusterSocket.layer({
      storage: "sql",
      shardingConfig: {
        runnerAddress: Option.some(RunnerAddress.make(host, port)),
        runnerListenAddress: options.listenHost !== undefined
          ? Option.some(RunnerAddress.make(options.listenHost, port))
          : Option.none(),
        availableShardGroups: groups,
        assignedShardGroups: groups,
        // Shard locks as rows keyed by shard id ("alpha:12"), not PostgreSQL advisory locks: those
        // are numbered by the group's place in this runner's own group list, so runners of
        // different groups would take the same lock numbers and exclude each other.
        shardLockDisableAdvisory: true,
        ...(options.shardLockExpiration !== undefined ? { shardLockExpiration: options.shardLockExpiration } : {})
      }
    })),
    Layer.provide(sqlLayer(options.sqlUrl))
  )
}
