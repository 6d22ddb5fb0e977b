package org.clustersim.strategies.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.clustersim.core.Simulation;
import org.clustersim.topology.RackPodSpec;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/** Collectives on NVL72 racks under the SuperPOD GB200 fabric: NVLink inside a rack, the NICs across. */
class RackPodCollectiveTest {
    private static final long BYTES = 1L << 30;

    private static Topology gb200(int racks) {
        return RackPodSpec.of(SwitchedClusterSpec.gb200Nvl72(1), racks).build();
    }

    private static CommGroup rack(int r) {
        int[] d = new int[72];
        for (int g = 0; g < 72; g++) {
            d[g] = r * 72 + g;
        }
        return new CommGroup(d);
    }

    /** GPU {@code gpu} of each of the first {@code racks} racks. */
    private static CommGroup across(int racks, int gpu) {
        int[] d = new int[racks];
        for (int r = 0; r < racks; r++) {
            d[r] = r * 72 + gpu;
        }
        return new CommGroup(d);
    }

    private static long ringTime(Topology t, CommGroup g) {
        return new CollectiveStudy(t, Simulation.Fidelity.FLOW, List.of()).time("ring", CollectiveOp.ALL_REDUCE, g,
                BYTES);
    }

    private static double busbw(int n, long ns) {
        return BYTES / (ns / 1e9) * CollectiveOp.ALL_REDUCE.busBandwidthFactor(n) / 1e9;
    }

    @Test
    void crossRackAllReduceIsBoundedByTheNic() {
        Topology t = gb200(16);
        double bw = busbw(16, ringTime(t, across(16, 5)));
        // one ConnectX-7 per GPU: 50 GB/s per direction is the ceiling, the network's sustained fraction below it
        double nic = 50;
        assertTrue(bw <= nic, "bus bandwidth " + bw + " GB/s above the 50 GB/s NIC");
        assertTrue(bw >= nic * t.tuning().netEfficiency() * 0.9, "bus bandwidth " + bw + " GB/s");
        System.out.printf("gb200-nvl72 x 16 racks, ring all-reduce of 1 GiB over one GPU per rack: %.1f GB/s bus%n", bw);
    }

    @Test
    void sameRackAllReduceRunsOnNvlinkWhateverTheRackCount() {
        long two = ringTime(gb200(2), rack(0));
        long many = ringTime(gb200(39), rack(0));
        assertEquals(two, many, "a rack's 72-GPU all-reduce on 2 and on 39 racks");
        double bw = busbw(72, two);
        assertTrue(bw > 4 * 50, "same-rack bus bandwidth " + bw + " GB/s should be NVLink's, far above the NIC");
        System.out.printf("gb200-nvl72, ring all-reduce of 1 GiB over one rack's 72 GPUs: %.1f GB/s bus%n", bw);
    }
}
