package org.clustersim.strategies.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.clustersim.core.Simulation;
import org.clustersim.topology.CommTuning;
import org.clustersim.topology.Topology;
import org.clustersim.topology.TorusSpec;
import org.junit.jupiter.api.Test;

class TorusAlgorithmTest {
    static long time(Topology t, CollectiveOp op, long bytes) {
        int n = t.deviceCount();
        int[] all = new int[n];
        for (int i = 0; i < n; i++) {
            all[i] = i;
        }
        return new CollectiveStudy(t, Simulation.Fidelity.FLOW, List.of()).time("torus", op, new CommGroup(all), bytes);
    }

    /** Closed form: per axis pass (L-1)/L of the current chunk, split over both directions on a wrapped axis. */
    static double closedForm(int[] dims, double linkRate, long s, boolean allReduce) {
        CommTuning.Protocol p = CommTuning.TPU.simple();
        double chunk = s;
        double total = p.baseNs();
        for (int pass = 0; pass < (allReduce ? 2 : 1); pass++) {
            for (int a = 0; a < dims.length; a++) {
                int l = dims[a];
                double c = pass == 0 ? chunk : chunk;
                total += (l - 1.0) / l * c / 2 / linkRate * 1e9 + (l - 1) * p.nvlinkStepNs() + 1000;
                if (pass == 0) {
                    chunk /= l;
                }
            }
            if (pass == 0) {
                // all-gather retraces the axes in reverse, growing the chunk back
                double c = chunk;
                double ag = 0;
                for (int a = dims.length - 1; a >= 0 && allReduce; a--) {
                    int l = dims[a];
                    c *= l;
                    ag += (l - 1.0) / l * c / 2 / linkRate * 1e9 + (l - 1) * p.nvlinkStepNs() + 1000;
                }
                return total + ag;
            }
        }
        return total;
    }

    @Test
    void wrappedSliceAllReduceMatchesThePerAxisClosedForm() {
        for (int[] dims : new int[][] {{4, 4, 4}, {4, 4, 8}}) {
            TorusSpec spec = TorusSpec.v4(dims[0], dims[1], dims[2]);
            double rate = 45e9 * CommTuning.TPU.nvlinkEfficiency();
            long s = 1L << 30;
            double expected = closedForm(dims, rate, s, true);
            long sim = time(spec.build(), CollectiveOp.ALL_REDUCE, s);
            assertTrue(Math.abs(sim - expected) <= 0.01 * expected, "torus " + java.util.Arrays.toString(dims)
                    + ": closed form " + (long) expected + ", simulated " + sim);
        }
    }

    @Test
    void bandwidthTimeIsAboutSOverBWhateverTheAxisLengths() {
        double rate = 45e9 * CommTuning.TPU.nvlinkEfficiency();
        long s = 4L << 30;
        long small = time(TorusSpec.v4(4, 4, 4).build(), CollectiveOp.ALL_REDUCE, s);
        long large = time(TorusSpec.v4(8, 8, 8).build(), CollectiveOp.ALL_REDUCE, s);
        assertEquals(s / rate * 1e9, small, 0.05 * s / rate * 1e9);
        assertEquals(1.0, (double) large / small, 0.05, "512 chips vs 64 chips");
    }

    @Test
    void anUnwrappedAxisCostsMoreThanAWrappedOne() {
        long wrapped = time(TorusSpec.v5e(16, 16).build(), CollectiveOp.ALL_REDUCE, 1L << 30);
        long open = time(TorusSpec.v5e(8, 16).build(), CollectiveOp.ALL_REDUCE, 1L << 30);
        assertTrue(open > wrapped, "8x16 (x does not wrap) " + open + " vs 16x16 " + wrapped);
    }
}
