package org.clustersim.cli;

/**
 * The model section (and a small slice running it, {@link #TPU_SLICE}) the command-line TPU
 * tests share: a two-layer dense transformer (hidden 2048, 16 heads, ffn 8192, vocabulary
 * 32,000), small enough that a slice's step runs in well under a second, large enough that
 * every mesh axis carries traffic.
 */
final class SmallDenseModel {
    private SmallDenseModel() {
    }

    /** The {@code model:} section, unindented, ending with a newline. */
    static final String YAML = """
            model:
              layers: 2
              hidden: 2048
              heads: 16
              ffn: 8192
              vocab: 32000
            """;

    /**
     * A whole scenario: the model on a v5e 4x4 slice sharded FSDP 4 x tensor 4 (MaxText's mesh
     * axes), 8 sequences of 2048 tokens in microbatches of 2 with minimal remat.
     */
    static final String TPU_SLICE = """
            cluster:
              preset: tpu-v5e
              topology: 4x4
            %sparallelism:
              mesh: {ici_fsdp: 4, ici_tensor: 4}
            training:
              globalBatch: 8
              microBatch: 2
              seqLen: 2048
              remat: minimal
            """.formatted(YAML);
}
