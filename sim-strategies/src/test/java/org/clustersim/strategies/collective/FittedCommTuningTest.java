package org.clustersim.strategies.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;

import org.clustersim.core.Simulation;
import org.clustersim.strategies.device.CollectiveMeasurement;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/** The profile's fitted all-reduce constants are what the network model runs. */
class FittedCommTuningTest {
    static final CommGroup EIGHT = new CommGroup(new int[] {0, 1, 2, 3, 4, 5, 6, 7});

    static long time(Topology t, CollectiveOp op, long bytes) {
        return new CollectiveStudy(t, Simulation.Fidelity.FLOW, List.of()).time("auto", op, EIGHT, bytes);
    }

    static double busGBps(long bytes, long ns) {
        return bytes * CollectiveOp.ALL_REDUCE.busBandwidthFactor(8) / ns;
    }

    /** Simulated 8-byte latency (us) and 8 GiB bus bandwidth (GB/s) against the fit. */
    static void runsAsFitted(Topology t, double latencyUs, double busGBps) {
        assertEquals(latencyUs * 1e3, time(t, CollectiveOp.ALL_REDUCE, 8), 0.02 * latencyUs * 1e3, "8-byte all-reduce");
        long big = 8L << 30;
        assertEquals(busGBps, busGBps(big, time(t, CollectiveOp.ALL_REDUCE, big)), 0.005 * busGBps, "8 GiB busbw");
    }

    @Test
    void theBundledH100FitIsWhatAnEightGpuAllReduceTakes() {
        List<CollectiveMeasurement> fits = DeviceProfiles.bundled("h100-sxm").collectives();
        assertEquals(1, fits.size());
        // the published nccl-tests table (collectives.md): 13.67 us at 8 B, 480.4 GB/s fitted at large sizes
        runsAsFitted(FittedCommTuning.over(SwitchedClusterSpec.dgxH100(1).build(), fits), 13.67, 480.4);
    }

    @Test
    void aUserProfilesFitMovesTheModelWithIt() {
        Topology h100 = SwitchedClusterSpec.dgxH100(1).build();
        runsAsFitted(FittedCommTuning.over(h100, List.of(new CollectiveMeasurement("all_reduce", "nvlink", 8, 30_000,
                400e9))), 30, 400);
        // without in-switch reduction the fit is the ring's: A100's NVLink3 at 300 GB/s
        Topology a100 = SwitchedClusterSpec.dgxA100(1).build();
        runsAsFitted(FittedCommTuning.over(a100, List.of(new CollectiveMeasurement("all_reduce", "nvlink", 8, 20_000,
                230e9))), 20, 230);
    }

    @Test
    void fitsThatDoNotApplyLeaveTheMachineAlone() {
        Topology h100 = SwitchedClusterSpec.dgxH100(1).build();
        assertSame(h100, FittedCommTuning.over(h100, List.of()));
        assertSame(h100, FittedCommTuning.over(h100, List.of(new CollectiveMeasurement("all_reduce", "network", 8,
                30_000, 400e9), new CollectiveMeasurement("all_gather", "nvlink", 8, 30_000, 400e9),
                new CollectiveMeasurement("all_reduce", "nvlink", 16, 30_000, 400e9))));
    }
}
