package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each pipeline rank's first forward of each of its stages enters the stage's modules, in
 * forward order (the layers, then the logits on the last stage): what Megatron-core's forward
 * pre-hooks see on the first microbatch of a step, which is where the overlapped all-gather of
 * updated weights is waited for and the next bucket's gather dispatched
 * (megatron/core/distributed/distributed_data_parallel.py, {@code _make_forward_pre_hook}).
 * Recorded while the pipelines are emitted, one step at a time.
 */
final class ForwardEntries {
    /**
     * One module entry.
     *
     * @param waiter the first task of the module's forward: it waits for the module's weights
     * @param before the task that precedes it in the forward, -1 at the forward's start: the
     *               compute the GPU has queued when the pre-hook dispatches the next gather
     * @param layer  the layer, -1 for the logits
     */
    record Entry(int waiter, int before, int layer) {
    }

    /** Key: first device of the rank's group x stages + stage. */
    private final Map<Long, List<Entry>> entries = new HashMap<>();
    private final int stages;

    ForwardEntries(int stages) {
        this.stages = stages;
    }

    /**
     * The list to record the first forward of {@code stage} on the rank whose group starts at
     * {@code firstDevice} into, or null if that forward was recorded already.
     */
    List<Entry> start(int firstDevice, int stage) {
        long key = (long) firstDevice * stages + stage;
        if (entries.containsKey(key)) {
            return null;
        }
        List<Entry> list = new ArrayList<>();
        entries.put(key, list);
        return list;
    }

    /** The entries of the first forward of {@code stage} on the rank whose group starts at {@code firstDevice}. */
    List<Entry> of(int firstDevice, int stage) {
        return entries.getOrDefault((long) firstDevice * stages + stage, List.of());
    }
}
