package org.clustersim.strategies.device;

import java.util.Locale;

/**
 * How the attention core is computed. STANDARD materialises the score matrix (scale, mask,
 * softmax and dropout as separate passes over it, as frameworks did before fused kernels);
 * FLASH2 is FlashAttention-2 (Dao 2023, arXiv 2307.08691); FLASH3 FlashAttention-3 (Shah et al.
 * 2024, arXiv 2407.08608, Hopper only); CUDNN the cuDNN fused attention that Transformer
 * Engine selects on Hopper and Blackwell; SPLASH the Pallas splash ("sparse flash") attention
 * kernel MaxText runs on TPU (jax/experimental/pallas/ops/tpu/splash_attention, packaged in
 * openxla/tokamax), which skips the key/value blocks a mask hides entirely: under a causal
 * mask it computes the lower-triangular blocks and the diagonal ones.
 */
public enum AttentionImpl {
    STANDARD, FLASH2, FLASH3, CUDNN, SPLASH;

    /** The name in scenario and profile files. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}
