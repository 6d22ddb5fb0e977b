package org.clustersim.core.network;

/**
 * What the flow model counts of its own work, for benchmarks and tests: re-ratings, flows
 * re-rated, flow classes started and split, adaptive route choices reused. The parts of
 * {@link FlowNetwork} add to the fields directly; {@link FlowNetwork} hands them out.
 */
final class FlowStats {
    /** Re-ratings, counting a class's start (it rates its members at once). */
    long rerates;
    /** Flows re-rated, summed over all re-ratings (a class's start counts its members). */
    long flowsRerated;
    long classesStarted;
    /** Classes split into their members, for any reason (a flow joining, a saturated shared link, a fault). */
    long classesSplit;
    long classesSplitBySaturation;
    long routeChoicesReused;
}
