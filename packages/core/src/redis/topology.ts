/** A Redis address. */
export interface RedisAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * Where the Redis tier lives. One shape for the three deployments; the store builds the
 * matching ioredis client.
 */
export type RedisTopology =
  | { readonly mode: "standalone"; readonly url: string }
  | {
      readonly mode: "sentinel";
      readonly sentinels: readonly RedisAddress[];
      readonly masterName: string;
      readonly password?: string;
    }
  | {
      readonly mode: "cluster";
      readonly nodes: readonly RedisAddress[];
      readonly password?: string;
      /** Rewrites announced node addresses (e.g. through a fault proxy). */
      readonly natMap?: Readonly<Record<string, RedisAddress>>;
    };
