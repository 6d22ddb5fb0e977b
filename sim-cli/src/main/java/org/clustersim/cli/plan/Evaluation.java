package org.clustersim.cli.plan;

import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;

/**
 * A simulated candidate's figures, all measured from its timeline by the same code that
 * {@code clustersim run} reports with.
 *
 * @param index                the candidate's index
 * @param stepTimeNs           simulated step time
 * @param mfu                  model FLOPs utilisation
 * @param bubbleFraction       mean compute idle time over step time
 * @param exposedCommFraction  mean exposed communication over step time
 * @param exposedByKindNs      mean exposed communication per GPU by traffic kind (tp-comm, pp-p2p, dp-comm, ...)
 * @param interferenceFraction mean compute time lost to communication kernels over step time
 * @param peakMemoryBytes      highest simulated peak memory over GPUs
 * @param oom                  that peak exceeds HBM (the candidate is then not ranked)
 */
public record Evaluation(int index, long stepTimeNs, double mfu, double bubbleFraction, double exposedCommFraction,
                         TreeMap<String, Long> exposedByKindNs, double interferenceFraction, long peakMemoryBytes,
                         boolean oom) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Mean exposed time per kind from per-GPU maps. */
    static TreeMap<String, Long> meanByKind(Iterable<Map<String, Long>> perGpu, int gpus) {
        TreeMap<String, Long> sum = new TreeMap<>();
        for (Map<String, Long> m : perGpu) {
            m.forEach((k, v) -> sum.merge(k, v, Long::sum));
        }
        TreeMap<String, Long> mean = new TreeMap<>();
        sum.forEach((k, v) -> mean.put(k, v / Math.max(1, gpus)));
        return mean;
    }
}
