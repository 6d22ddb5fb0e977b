package org.clustersim.cli.whatif;

import java.util.Map;

/**
 * What one variant of a scenario measured, or why it could not run.
 *
 * @param label          what was changed ("baseline" for none)
 * @param linkClass      the class of the failed link for a link sweep, else empty
 * @param stepTimeNs     simulated step time, 0 when the variant failed
 * @param mfu            model FLOPs utilisation
 * @param bubbleFraction mean compute idle fraction over the simulated GPUs
 * @param exposedCommFraction mean exposed communication fraction over the simulated GPUs
 * @param exposedByKindNs exposed communication per traffic kind, mean per simulated GPU
 * @param linkBytes      bytes each link carried, by link id (empty when failed)
 * @param linkBusyNs     time each link carried at least one flow, by link id (empty when failed)
 * @param failure        why the variant could not run (a fault cut a group apart), or null
 */
public record Outcome(String label, String linkClass, long stepTimeNs, double mfu, double bubbleFraction,
                      double exposedCommFraction, Map<String, Long> exposedByKindNs, long[] linkBytes,
                      long[] linkBusyNs, String failure) implements java.io.Serializable {

    public boolean failed() {
        return failure != null;
    }

    /** Step time relative to a baseline's; infinite when this variant failed. */
    public double slowdown(Outcome baseline) {
        return failed() ? Double.POSITIVE_INFINITY : (double) stepTimeNs / baseline.stepTimeNs;
    }
}
