package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * DeepSpeed ZeRO-3's parameter coordinator for one rank, replayed on the host's order of
 * submodule hooks (deepspeedai/DeepSpeed, deepspeed/runtime/zero/partitioned_param_coordinator.py:
 * {@code fetch_sub_module}, {@code release_sub_module}, {@code __params_to_release}). A micro-step's
 * trace is every submodule of the stage's layers forward, then backward in reverse; each
 * submodule (one {@link LayerTensors.Tensor}) is a step. At each step's pre-hook the coordinator
 * all-gathers the submodule's own parameters if they are not gathered or in flight, waits for
 * them, pops the trace queue up to this step and prefetches the next parameters of the trace
 * that are not available, as one coalesced all-gather, until {@code prefetch_bucket_size}
 * elements or the room under {@code max_live_parameters} is used. At the post-hook it releases
 * the submodule's parameters unless they are persistent (fewer elements than
 * {@code param_persistence_threshold}: never partitioned), the prefetcher already passed a later
 * use of them, or they reappear within {@code max_reuse_distance} elements of the trace (this
 * keeps the last layers of the forward gathered into the backward). At the end of the backward
 * everything is released ({@code release_and_reset_all}).
 */
final class DeepSpeedCoordinator {
    /** One coalesced all-gather: its sequence number, elements and parameter count. */
    record Gather(int seq, double numel, int tensors) {
    }

    /**
     * What one layer pass did: the all-gathers its hooks issued (own and prefetched), those it
     * waited for (by sequence number), the parameters it waited for (whose flat buffer each is
     * copied out of, one kernel per parameter), and its submodules (one hook pair each).
     */
    record Fetch(List<Gather> issued, List<Integer> awaited, double copyOutNumel, int copyOutTensors,
                 int submodules) {
    }

    private final ShardingOptions.DeepSpeedConfig config;
    /** Tensor index of each trace step; steps of layer i forward then backward. */
    private final int[] stepTensor;
    private final double[] numel;
    private final boolean[] persistent;
    private final int[] firstTensor;
    /** The trace queue: the steps whose tensor is partitioned. */
    private final int[] queue;

    private final boolean[] available;
    private final int[] fetchedFor;
    private final int[] lastGather;
    private final boolean[] waited;
    private int queueAt;
    private int position;
    private double live;
    private double peakLive;
    private int gathers;

    DeepSpeedCoordinator(List<List<LayerTensors.Tensor>> layers, ShardingOptions.DeepSpeedConfig config) {
        this.config = config;
        int n = 0;
        for (List<LayerTensors.Tensor> l : layers) {
            n += l.size();
        }
        numel = new double[n];
        persistent = new boolean[n];
        firstTensor = new int[layers.size() + 1];
        int t = 0;
        for (int i = 0; i < layers.size(); i++) {
            firstTensor[i] = t;
            for (LayerTensors.Tensor x : layers.get(i)) {
                numel[t] = x.numel();
                persistent[t] = x.numel() < config.persistenceThreshold();
                t++;
            }
        }
        firstTensor[layers.size()] = n;
        stepTensor = new int[2 * n];
        for (int s = 0; s < n; s++) {
            stepTensor[s] = s;
            stepTensor[2 * n - 1 - s] = s;
        }
        List<Integer> q = new ArrayList<>();
        for (int s = 0; s < stepTensor.length; s++) {
            if (!persistent[stepTensor[s]]) {
                q.add(s);
            }
        }
        queue = q.stream().mapToInt(Integer::intValue).toArray();
        available = new boolean[n];
        fetchedFor = new int[n];
        lastGather = new int[n];
        waited = new boolean[n];
        reset();
    }

    /** Runs the hooks of layer {@code layer} (index in the stage) in a forward or a backward pass. */
    Fetch pass(int layer, boolean forward) {
        int n = numel.length;
        int first = forward ? firstTensor[layer] : 2 * n - firstTensor[layer + 1];
        if (position != first) {
            // a pass out of the micro-step's order (a schedule that is not forward-then-backward
            // per microbatch): start the trace over from this pass
            reset();
            position = first;
            queueAt = 0;
            while (queueAt < queue.length && queue[queueAt] < first) {
                queueAt++;
            }
        }
        List<Gather> issued = new ArrayList<>();
        List<Integer> awaited = new ArrayList<>();
        double copyOut = 0;
        int copies = 0;
        int count = firstTensor[layer + 1] - firstTensor[layer];
        for (int k = 0; k < count; k++) {
            int s = position;
            int t = stepTensor[s];
            // fetch: the submodule's own parameters, then wait for them
            if (!persistent[t]) {
                if (!available[t]) {
                    issued.add(gather(new int[] {t}));
                }
                if (!waited[t]) {
                    waited[t] = true;
                    awaited.add(lastGather[t]);
                    copyOut += numel[t];
                    copies++;
                }
            }
            // pop the queue up to this step, then prefetch
            while (queueAt < queue.length && queue[queueAt] <= s) {
                int q = stepTensor[queue[queueAt++]];
                fetchedFor[q] = Math.max(fetchedFor[q], queue[queueAt - 1]);
            }
            if (config.prefetchBucket() > 0) {
                double room = Math.min(config.maxLive() - live, config.prefetchBucket());
                List<Integer> batch = new ArrayList<>();
                double numelPrefetching = 0;
                while (queueAt < queue.length && numelPrefetching < room) {
                    int qs = queue[queueAt++];
                    int q = stepTensor[qs];
                    fetchedFor[q] = Math.max(fetchedFor[q], qs);
                    if (!available[q] && !batch.contains(q)) {
                        batch.add(q);
                        numelPrefetching += numel[q];
                    }
                }
                if (!batch.isEmpty()) {
                    issued.add(gather(batch.stream().mapToInt(Integer::intValue).toArray()));
                }
            }
            peakLive = Math.max(peakLive, live);
            release(s, t);
            position++;
        }
        if (position == stepTensor.length) {
            reset();
        }
        return new Fetch(issued, awaited, copyOut, copies, count);
    }

    /** The most elements gathered at once so far. */
    double peakLive() {
        return peakLive;
    }

    private Gather gather(int[] tensors) {
        double sum = 0;
        for (int t : tensors) {
            sum += numel[t];
            available[t] = true;
            waited[t] = false;
            lastGather[t] = gathers;
        }
        live += sum;
        return new Gather(gathers++, sum, tensors.length);
    }

    private void release(int step, int t) {
        if (persistent[t] || !available[t] || fetchedFor[t] > step) {
            return;
        }
        double traversed = 0;
        for (int s = step + 1; s < stepTensor.length && traversed < config.maxReuseDistance(); s++) {
            if (stepTensor[s] == t) {
                return;
            }
            traversed += numel[stepTensor[s]];
        }
        available[t] = false;
        live -= numel[t];
    }

    private void reset() {
        Arrays.fill(available, false);
        Arrays.fill(fetchedFor, -1);
        Arrays.fill(waited, false);
        live = 0;
        position = 0;
        queueAt = 0;
    }
}
