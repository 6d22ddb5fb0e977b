package org.clustersim.strategies.training;

/**
 * How ZeRO shards the model states over the data-parallel ranks.
 *
 * @param stage      ZeRO stage (0 to 3)
 * @param shardGroup ranks ZeRO shards over (hybrid sharding), 0 for all of them (dp x cp; the
 *                   expert data-parallel group for expert weights)
 * @param options    which framework runs ZeRO 3 and how ({@link ShardingOptions#defaults} when
 *                   {@code null}; only ZeRO 3 may name another)
 */
public record ZeroSharding(int stage, int shardGroup, ShardingOptions options) {
    /** No ZeRO: every rank holds all model states. */
    public static final ZeroSharding NONE = new ZeroSharding(0, 0, null);

    public ZeroSharding {
        if (options == null) {
            options = ShardingOptions.defaults();
        }
    }
}
