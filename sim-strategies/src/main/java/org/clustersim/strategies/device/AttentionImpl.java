package org.clustersim.strategies.device;

import java.util.Locale;

/**
 * How the attention core is computed. STANDARD materialises the score matrix (scale, mask,
 * softmax and dropout as separate passes over it, as frameworks did before fused kernels);
 * FLASH2 is FlashAttention-2 (Dao 2023, arXiv 2307.08691); FLASH3 FlashAttention-3 (Shah et al.
 * 2024, arXiv 2407.08608, Hopper only); CUDNN the cuDNN fused attention that Transformer
 * Engine selects on Hopper and Blackwell.
 */
public enum AttentionImpl {
    STANDARD, FLASH2, FLASH3, CUDNN;

    /** The name in scenario and profile files. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}
