package org.clustersim.study.whatif;

import java.util.Map;

import org.clustersim.study.StepFigures;

/**
 * What one variant of a scenario measured, or why it could not run: the figures a study compares,
 * taken from the variant's {@link StepFigures} (so they are those {@code run} reports), small
 * enough to travel back from another JVM.
 *
 * @param label          what was changed ("baseline" for none)
 * @param linkClass      the class of the failed link for a link sweep, else empty
 * @param stepTimeNs     simulated step time, 0 when the variant failed
 * @param mfu            model FLOPs utilisation
 * @param idleFraction   mean compute idle fraction over the simulated GPUs: the sum of the next three
 * @param pipelineBubbleFraction mean fraction waiting on another pipeline stage (docs/metrics.md)
 * @param exposedCommFraction mean fraction waiting on communication
 * @param otherWaitFraction mean fraction of other waits
 * @param exposedByKindNs exposed communication per traffic kind, mean per simulated GPU
 * @param linkBytes      bytes each link carried, by link id (empty when failed)
 * @param linkBusyNs     time each link carried at least one flow, by link id (empty when failed)
 * @param failure        why the variant could not run (a fault cut a group apart), or null
 */
public record Outcome(String label, String linkClass, long stepTimeNs, double mfu, double idleFraction,
                      double pipelineBubbleFraction, double exposedCommFraction, double otherWaitFraction, Map<String, Long> exposedByKindNs, long[] linkBytes,
                      long[] linkBusyNs, String failure) implements java.io.Serializable {

    /** A variant that ran, with its figures. */
    public static Outcome of(String label, String linkClass, StepFigures f) {
        return new Outcome(label, linkClass, f.stepTimeNs(), f.mfu(), f.idleFraction(),
                f.pipelineBubbleFraction(), f.exposedCommFraction(), f.otherWaitFraction(),
                f.exposedByKindNs(), f.linkBytes(), f.linkBusyNs(), null);
    }

    /** A variant that could not run, and why. */
    public static Outcome failed(String label, String linkClass, String failure) {
        return new Outcome(label, linkClass, 0, 0, 0, 0, 0, 0, Map.of(), new long[0], new long[0], failure);
    }

    public boolean failed() {
        return failure != null;
    }

    /** Step time relative to a baseline's; infinite when this variant failed. */
    public double slowdown(Outcome baseline) {
        return failed() ? Double.POSITIVE_INFINITY : (double) stepTimeNs / baseline.stepTimeNs;
    }
}
