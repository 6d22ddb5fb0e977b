package org.clustersim.strategies.training;

import java.util.Objects;

import org.clustersim.strategies.cost.CudaGraphs;
import org.clustersim.topology.HostAttachment;

/**
 * How the framework runs a step's kernels beyond their arithmetic: which of them replay from
 * CUDA graphs ({@link CudaGraphs}), and how many layers' activations go to host memory
 * (Megatron-core's {@code cpu_offloading} with {@code cpu_offloading_num_layers}, activations
 * only, as Megatron-Bridge's {@code --activation_offload_layers} sets it; {@link ActivationOffload}).
 *
 * @param graphs        CUDA graph capture
 * @param offloadLayers layers whose saved activations are copied to the host in the forward and
 *                      back before their backward, the first ones of each model chunk; 0: none
 * @param host          the host link and memory the copies use; null when nothing is offloaded
 */
public record Execution(CudaGraphs graphs, int offloadLayers, HostAttachment host) {
    /** Every kernel launched eagerly, nothing offloaded. */
    public static final Execution EAGER = new Execution(CudaGraphs.NONE, 0, null);

    public Execution {
        Objects.requireNonNull(graphs, "graphs");
        if (offloadLayers < 0) {
            throw new IllegalArgumentException("offloaded layers must not be negative, not " + offloadLayers);
        }
        if (offloadLayers > 0 && host == null) {
            throw new IllegalArgumentException("offloading activations needs the host link and memory");
        }
    }

    /** Whether any activations go to the host. */
    public boolean offloads() {
        return offloadLayers > 0;
    }
}
