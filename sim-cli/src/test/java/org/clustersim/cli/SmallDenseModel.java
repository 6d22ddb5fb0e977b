package org.clustersim.cli;

/**
 * The model section the command-line TPU tests share: a two-layer dense transformer (hidden
 * 2048, 16 heads, ffn 8192, vocabulary 32,000), small enough that a slice's step runs in
 * well under a second, large enough that every mesh axis carries traffic.
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
}
