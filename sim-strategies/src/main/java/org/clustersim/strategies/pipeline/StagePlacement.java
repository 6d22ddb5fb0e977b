package org.clustersim.strategies.pipeline;

/**
 * Where the stages of a microbatch's path through the model run. A model copy is cut into
 * {@link #stages()} consecutive stages; stage k of microbatch i runs on
 * {@code rank(i, k)} as that rank's model chunk {@code chunk(i, k)}.
 */
public interface StagePlacement {
    /** Stages on every microbatch's path. */
    int stages();

    /** Rank that runs stage {@code stage} of microbatch {@code microbatch}. */
    int rank(int microbatch, int stage);

    /** The chunk (local model piece) of that rank that holds this stage. */
    int chunk(int microbatch, int stage);

    /** Model chunks each rank holds. */
    int chunksPerRank();

    /**
     * Size of one chunk relative to one rank's share of one model copy (L/p layers): 1/v for
     * interleaving, 1/2 for V shapes, 1 for DualPipe's two full copies.
     */
    double chunkShare();

    /** The stage a rank's chunk holds for a microbatch. */
    default int stage(int rank, int chunk, int microbatch) {
        for (int k = 0; k < stages(); k++) {
            if (rank(microbatch, k) == rank && chunk(microbatch, k) == chunk) {
                return k;
            }
        }
        throw new IllegalArgumentException("rank " + rank + " holds no chunk " + chunk + " for microbatch "
                + microbatch);
    }

    /**
     * The stage a rank's chunk holds, whichever microbatch uses it: the weights that chunk
     * carries. DualPipe's chunks each serve one direction, so no single microbatch uses both.
     */
    default int stageOfChunk(int rank, int chunk) {
        return stage(rank, chunk, 0);
    }

    /** One stage per rank, in rank order (GPipe, 1F1B, ZB-H1, ZB-H2). */
    static StagePlacement linear(int ranks) {
        return new StagePlacement() {
            public int stages() {
                return ranks;
            }

            public int rank(int mb, int stage) {
                return stage;
            }

            public int chunk(int mb, int stage) {
                return 0;
            }

            public int chunksPerRank() {
                return 1;
            }

            public double chunkShare() {
                return 1;
            }

            public int stage(int rank, int chunk, int mb) {
                return rank;
            }
        };
    }

    /** v chunks per rank, stage k on rank k mod p as chunk k / p (Megatron interleaving). */
    static StagePlacement interleaved(int ranks, int v) {
        return new StagePlacement() {
            public int stages() {
                return ranks * v;
            }

            public int rank(int mb, int stage) {
                return stage % ranks;
            }

            public int chunk(int mb, int stage) {
                return stage / ranks;
            }

            public int chunksPerRank() {
                return v;
            }

            public double chunkShare() {
                return 1.0 / v;
            }

            public int stage(int rank, int chunk, int mb) {
                return chunk * ranks + rank;
            }
        };
    }

    /** Two chunks per rank in a V: stages 0..p-1 down the ranks, p..2p-1 back up (ZB-V, DualPipeV). */
    static StagePlacement vShape(int ranks) {
        return new StagePlacement() {
            public int stages() {
                return 2 * ranks;
            }

            public int rank(int mb, int stage) {
                return stage < ranks ? stage : 2 * ranks - 1 - stage;
            }

            public int chunk(int mb, int stage) {
                return stage < ranks ? 0 : 1;
            }

            public int chunksPerRank() {
                return 2;
            }

            public double chunkShare() {
                return 0.5;
            }

            public int stage(int rank, int chunk, int mb) {
                return chunk == 0 ? rank : 2 * ranks - 1 - rank;
            }
        };
    }

    /**
     * DualPipe's two model copies: the first m/2 microbatches run down the ranks (copy 0), the
     * rest up the ranks (copy 1). On the first half of the ranks chunk 0 is copy 0; on the
     * second half chunk 0 is copy 1, so chunk 0 is always the copy that reaches the rank first.
     */
    static StagePlacement dualPipe(int ranks, int microbatches) {
        return new StagePlacement() {
            private int direction(int mb) {
                return mb < microbatches / 2 ? 0 : 1;
            }

            public int stages() {
                return ranks;
            }

            public int rank(int mb, int stage) {
                return direction(mb) == 0 ? stage : ranks - 1 - stage;
            }

            public int chunk(int mb, int stage) {
                int r = rank(mb, stage);
                return direction(mb) ^ (r >= ranks / 2 ? 1 : 0);
            }

            public int chunksPerRank() {
                return 2;
            }

            public double chunkShare() {
                return 1;
            }

            @Override
            public int stageOfChunk(int rank, int chunk) {
                int d = chunk ^ (rank >= ranks / 2 ? 1 : 0);
                return d == 0 ? rank : ranks - 1 - rank;
            }

            public int stage(int rank, int chunk, int mb) {
                int d = direction(mb);
                if ((d ^ (rank >= ranks / 2 ? 1 : 0)) != chunk) {
                    throw new IllegalArgumentException("microbatch " + mb + " does not use chunk " + chunk
                            + " on rank " + rank);
                }
                return d == 0 ? rank : ranks - 1 - rank;
            }
        };
    }
}
