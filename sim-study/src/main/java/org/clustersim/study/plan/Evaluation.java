package org.clustersim.study.plan;

import java.io.Serializable;
import java.util.TreeMap;

/**
 * A simulated candidate's figures, taken from its {@link org.clustersim.study.StepFigures}: those
 * {@code clustersim run} reports.
 *
 * @param index                the candidate's index
 * @param stepTimeNs           simulated step time
 * @param mfu                  model FLOPs utilisation
 * @param pipelineBubbleFraction mean idle time waiting on another pipeline stage over step time (0 with pp 1)
 * @param exposedCommFraction  mean idle time waiting on communication over step time
 * @param otherWaitFraction    mean of the rest of the idle time over step time (docs/metrics.md, "Idle time")
 * @param exposedByKindNs      mean exposed communication per GPU by traffic kind (tp-comm, pp-p2p, dp-comm, ...)
 * @param interferenceFraction mean compute time lost to communication kernels over step time
 * @param peakMemoryBytes      highest simulated peak memory over GPUs
 * @param oom                  that peak exceeds HBM (the candidate is then not ranked)
 * @param rejected             why the scenario reader rejected the candidate's file ("" when it was simulated)
 */
public record Evaluation(int index, long stepTimeNs, double mfu, double pipelineBubbleFraction, double exposedCommFraction,
                         double otherWaitFraction,
                         TreeMap<String, Long> exposedByKindNs, double interferenceFraction, long peakMemoryBytes,
                         boolean oom, String rejected) implements Serializable {
    private static final long serialVersionUID = 3L;

    /** A candidate whose file the scenario reader rejected: not simulated, not ranked. */
    public static Evaluation rejected(int index, String why) {
        return new Evaluation(index, 0, 0, 0, 0, 0, new TreeMap<>(), 0, 0, false, why);
    }

    /** Whether the candidate was simulated and fits in HBM. */
    public boolean ranked() {
        return rejected.isEmpty() && !oom;
    }
}
