package org.clustersim.core.network;

/**
 * Max-min fair rates of flows over links of limited capacity: no flow's rate can rise without
 * lowering that of a flow no faster than it. The allocation is unique; in it every flow has a
 * saturated link on which no flow is faster (its bottleneck). The flow model rates only the
 * flows a change can reach, offering each link they cross what the other flows leave there,
 * and asks this for their rates (see {@link FlowNetwork}); kept apart so that it can be tested,
 * and replaced, on its own, as SimGrid keeps its {@code lmm} solver apart from its network
 * models.
 *
 * <p>The problem comes in arrays, indexed from 0, so that the network's hot loop hands it over
 * without objects per flow: flow {@code f} crosses links {@code hopLink[hopStart[f] ..
 * hopStart[f + 1])}, each at most once. Every flow has the same weight.
 */
interface MaxMinSolver {
    /**
     * The max-min fair rates of {@code flows} flows over {@code links} links.
     *
     * @param capacity per link, the capacity it offers these flows (read, not written)
     * @param hopStart per flow and one past the last, where its links start in {@code hopLink}
     * @param hopLink  the links of every flow, flow by flow
     * @return per flow, its rate in {@code capacity}'s unit, in the first {@code flows} entries;
     *         the array is the solver's, valid until its next call (a flow crossing no link gets 0)
     */
    double[] solve(int links, double[] capacity, int flows, int[] hopStart, int[] hopLink);

    /** Capacity link {@code link} of the last {@link #solve} has left over (about 0 when saturated). */
    double leftover(int link);
}
