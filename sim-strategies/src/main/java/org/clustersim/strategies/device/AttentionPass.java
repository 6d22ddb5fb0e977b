package org.clustersim.strategies.device;

import java.util.Locale;

/**
 * Which pass an attention throughput was measured for. COMBINED is forward plus backward
 * measured together (FLOPs 3.5 times the forward's), used for a pass that has no table of its
 * own.
 */
public enum AttentionPass {
    FORWARD, BACKWARD, COMBINED;

    /** The name in profile files. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}
