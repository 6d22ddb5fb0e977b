package org.clustersim.strategies.collective;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.clustersim.core.Simulation;
import org.clustersim.topology.CommTuning;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every algorithm on a contention-free topology against its alpha-beta closed form
 * (../shared/reference/collectives.md): alpha is the protocol's step latency, beta the
 * inverse of the sustained link rate (line rate x efficiency), plus the protocol's base
 * latency once and one route latency per phase.
 */
class CollectiveAlphaBetaTest {
    static final CommTuning T = CommTuning.H100;
    static final double NVLINK = 450e9 * T.nvlinkEfficiency();
    static final double NET = 50e9 * T.netEfficiency();
    static final long HOP_NVLINK = 500;

    static Topology node(int gpus) {
        return new SwitchedClusterSpec("test", org.clustersim.topology.AcceleratorSpec.H100_SXM, 1, gpus, 450e9, 250,
                50e9, 200, 1200).build();
    }

    static CommGroup first(int n) {
        int[] d = new int[n];
        for (int i = 0; i < n; i++) {
            d[i] = i;
        }
        return new CommGroup(d);
    }

    static long simulate(Topology t, String algo, CollectiveOp op, CommGroup g, long bytes) {
        return new CollectiveStudy(t, Simulation.Fidelity.FLOW, List.of()).time(algo, op, g, bytes);
    }

    static void assertWithin1Percent(double expected, long measured, String what) {
        assertTrue(Math.abs(measured - expected) <= 0.01 * expected,
                what + ": closed form " + (long) expected + " ns, simulated " + measured + " ns");
    }

    static double seconds(double bytes, double rate) {
        return bytes / rate * 1e9;
    }

    @ParameterizedTest(name = "ring all-reduce n={0} S={1}")
    @CsvSource({"2, 1048576", "4, 67108864", "8, 1073741824", "8, 4096", "6, 16777216"})
    void ringAllReduce(int n, long s) {
        CommTuning.Protocol p = T.simple();
        double expected = p.baseNs() + 2.0 * (n - 1) * p.nvlinkStepNs() + seconds(2.0 * (n - 1) / n * s, NVLINK)
                + HOP_NVLINK;
        long sim = simulate(node(n), "ring", CollectiveOp.ALL_REDUCE, first(n), s);
        // ring's auto-chosen protocol is not forced here: compare against the protocol the plan used
        Collectives.Choice c = Collectives.plan("ring", CollectiveOp.ALL_REDUCE, first(n), s, node(n));
        if (c.protocol() == Protocol.SIMPLE) {
            assertWithin1Percent(expected, sim, "ring all-reduce");
        } else {
            CommTuning.Protocol q = c.protocol().in(T);
            double other = q.baseNs() + 2.0 * (n - 1) * q.nvlinkStepNs()
                    + seconds(2.0 * (n - 1) / n * s, NVLINK * q.efficiency()) + HOP_NVLINK;
            assertWithin1Percent(other, sim, "ring all-reduce with " + c.protocol());
        }
    }

    @ParameterizedTest(name = "ring reduce-scatter and all-gather n={0}")
    @CsvSource({"4, 268435456", "8, 536870912"})
    void ringReduceScatterAndAllGather(int n, long s) {
        CommTuning.Protocol p = T.simple();
        double expected = p.baseNs() + (n - 1.0) * p.nvlinkStepNs() + seconds((n - 1.0) / n * s, NVLINK) + HOP_NVLINK;
        assertWithin1Percent(expected, simulate(node(n), "ring", CollectiveOp.REDUCE_SCATTER, first(n), s), "RS");
        assertWithin1Percent(expected, simulate(node(n), "ring", CollectiveOp.ALL_GATHER, first(n), s), "AG");
    }

    @ParameterizedTest(name = "halving-doubling all-reduce n={0}")
    @CsvSource({"2, 268435456", "4, 268435456", "8, 1073741824"})
    void halvingDoubling(int n, long s) {
        CommTuning.Protocol p = T.simple();
        int log = Integer.numberOfTrailingZeros(n);
        double expected = p.baseNs() + 2.0 * log * (p.nvlinkStepNs() + HOP_NVLINK)
                + seconds(2.0 * (n - 1) / n * s, NVLINK);
        assertWithin1Percent(expected, simulate(node(n), "halving-doubling", CollectiveOp.ALL_REDUCE, first(n), s),
                "halving-doubling");
    }

    @ParameterizedTest(name = "direct all-to-all n={0}")
    @CsvSource({"4, 268435456", "8, 1073741824"})
    void directAllToAll(int n, long s) {
        CommTuning.Protocol p = T.simple();
        double expected = p.baseNs() + (n - 1.0) * p.nvlinkStepNs() + seconds((n - 1.0) / n * s, NVLINK) + HOP_NVLINK;
        assertWithin1Percent(expected, simulate(node(n), "direct", CollectiveOp.ALL_TO_ALL, first(n), s), "a2a");
    }

    @ParameterizedTest(name = "double binary tree n={0}")
    @CsvSource({"4, 268435456", "8, 1073741824"})
    void doubleBinaryTree(int n, long s) {
        CommTuning.Protocol p = T.simple();
        // Pipelined reduce up and broadcast down each tree, half the data per tree: a rank sends S/2 to its
        // parent and S/2 to each child, in each tree. The busiest rank bounds the time (2S at n = 8, 1.5S at 4).
        double busiest = 0;
        for (int rank = 0; rank < n; rank++) {
            double out = 0;
            for (int pos : new int[] {rank, n - 1 - rank}) {
                int children = (2 * pos + 1 < n ? 1 : 0) + (2 * pos + 2 < n ? 1 : 0);
                out += (pos > 0 ? 0.5 : 0) + 0.5 * children;
            }
            busiest = Math.max(busiest, out);
        }
        int depth = 32 - Integer.numberOfLeadingZeros(n - 1);
        double expected = p.baseNs() + 2.0 * depth * p.nvlinkStepNs() + seconds(busiest * s, NVLINK) + HOP_NVLINK;
        assertWithin1Percent(expected, simulate(node(n), "tree", CollectiveOp.ALL_REDUCE, first(n), s), "tree");
    }

    @ParameterizedTest(name = "nvls n={0}")
    @CsvSource({"4, 268435456", "8, 1073741824"})
    void nvls(int n, long s) {
        double expected = 2.0 * T.nvlsStepNs() + seconds(s, 450e9 * T.nvlsEfficiency()) + HOP_NVLINK;
        assertWithin1Percent(expected, simulate(node(n), "nvls", CollectiveOp.ALL_REDUCE, first(n), s), "nvls");
    }

    @ParameterizedTest(name = "hierarchical k={0} N={1}")
    @CsvSource({"8, 2, 1073741824", "4, 4, 536870912"})
    void hierarchical(int k, int servers, long s) {
        Topology t = new SwitchedClusterSpec("test", org.clustersim.topology.AcceleratorSpec.H100_SXM, servers, k, 450e9,
                250, 50e9, 200, 1200).build();
        CommGroup all = first(k * servers);
        CommTuning.Protocol p = T.simple();
        double intra = seconds((k - 1.0) / k * s, NVLINK) + (k - 1.0) * p.nvlinkStepNs() + HOP_NVLINK;
        double inter = seconds(2.0 * (servers - 1) / servers * s / k, NET) + 2.0 * (servers - 1) * p.netStepNs()
                + 2 * (200 + 1200);
        double expected = p.baseNs() + 2 * intra + inter;
        assertWithin1Percent(expected, simulate(t, "hierarchical", CollectiveOp.ALL_REDUCE, all, s), "hierarchical");
    }
}
