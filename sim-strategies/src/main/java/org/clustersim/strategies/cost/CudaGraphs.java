package org.clustersim.strategies.cost;

import java.util.Locale;

/**
 * Which kernels of a step the framework captures as CUDA graphs and replays.
 * <ul>
 * <li>{@link #NONE}: every kernel launched eagerly, paying the host's launch cost (the profile's
 *     {@code launch.hostUs}) whenever the kernel is shorter.</li>
 * <li>{@link #PER_LAYER}: each transformer layer's forward and backward captured and replayed
 *     as a graph (Megatron-core's {@code cuda_graph_impl: local} or {@code transformer_engine}
 *     with the default {@code cuda_graph_scope}, TE's {@code make_graphed_callables} per layer);
 *     the embedding, the logits and loss, the optimizer and the communication between layers
 *     stay eager.</li>
 * <li>{@link #FULL_STEP}: the whole forward-backward and the optimizer captured
 *     ({@code cuda_graph_scope: full_iteration}).</li>
 * </ul>
 * Inside a graph each kernel costs its own time plus the device's per-node gap ({@code
 * launch.gapUs}) and no host launch: the host issues one graph launch, which runs ahead of the
 * device while the graph's nodes execute ({@link org.clustersim.strategies.device.Launch#graphReplay}).
 */
public enum CudaGraphs {
    NONE, PER_LAYER, FULL_STEP;

    /** The scenario's name: none, per-layer, full-step. */
    public String id() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Whether transformer layers run as graph replays. */
    public boolean layers() {
        return this != NONE;
    }

    /** Whether the embedding, loss and optimizer kernels run as graph replays too. */
    public boolean everything() {
        return this == FULL_STEP;
    }
}
