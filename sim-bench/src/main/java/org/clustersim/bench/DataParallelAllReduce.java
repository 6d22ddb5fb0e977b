package org.clustersim.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.clustersim.core.Simulation;
import org.clustersim.strategies.collective.CollectiveStudy;
import org.clustersim.topology.SuperPodSpec;
import org.clustersim.topology.Topology;

/**
 * Benchmark: the data-parallel gradient all-reduce of a 16,384-GPU layout (TP 8 inside each
 * server, PP 16, DP 128) on a 64-SU SuperPOD fabric: 128 concurrent ring all-reduces of 128
 * ranks, one per (TP rank, PP stage), 1 GiB each, under the flow model. Prints wall time
 * (build, plan and simulation separately), kernel events, re-ratings and peak heap.
 *
 * <p>Run: {@code java -Xmx2g -cp sim-bench/target/benchmarks.jar org.clustersim.bench.DataParallelAllReduce
 * [SU] [GiB] [ecmp|adaptive]}
 */
public final class DataParallelAllReduce {
    private DataParallelAllReduce() {
    }

    public static void main(String[] args) {
        int units = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        long bytes = (long) ((args.length > 1 ? Double.parseDouble(args[1]) : 1.0) * (1L << 30));
        Simulation.Routing routing = args.length > 2 ? Simulation.Routing.valueOf(args[2].toUpperCase(Locale.ROOT))
                : Simulation.Routing.ECMP;
        int tp = 8;
        int pp = 16;
        for (int round = 0; round < 2; round++) {
            long t0 = System.nanoTime();
            Topology topology = SuperPodSpec.h100(units).build();
            long t1 = System.nanoTime();
            int nodes = topology.deviceCount() / tp;
            int dp = nodes / pp;
            List<int[]> groups = new ArrayList<>();
            for (int stage = 0; stage < pp; stage++) {
                for (int t = 0; t < tp; t++) {
                    int[] devices = new int[dp];
                    for (int d = 0; d < dp; d++) {
                        // mesh order TP, PP, DP: node = stage + pp * d
                        devices[d] = (stage + pp * d) * tp + t;
                    }
                    groups.add(devices);
                }
            }
            RingAllReduces rings = RingAllReduces.over(topology, bytes, groups);
            long t2 = System.nanoTime();
            CollectiveStudy.Result r = rings.run(routing);
            long t3 = System.nanoTime();
            long slowest = RingAllReduces.slowestNs(r);
            System.out.printf(Locale.ROOT, "round %d: %d GPUs, %d rings of %d ranks, %.2f GiB each, %s routing%n",
                    round, topology.deviceCount(), groups.size(), dp, bytes / (double) (1L << 30), routing);
            System.out.printf(Locale.ROOT, "  build topology %.3f s, plan %.3f s, simulate %.3f s, total %.3f s%n",
                    (t1 - t0) / 1e9, (t2 - t1) / 1e9, (t3 - t2) / 1e9, (t3 - t0) / 1e9);
            System.out.printf(Locale.ROOT, "  simulated all-reduce time %.3f ms (slowest ring), busbw %.1f GB/s%n",
                    slowest / 1e6, rings.busBandwidth(slowest, dp) / 1e9);
            System.out.printf(Locale.ROOT, "  kernel events %d, re-ratings %d, flows re-rated %d%n",
                    r.run().timeline().events(), r.run().rerates(), r.run().flowsRerated());
        }
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        System.out.printf(Locale.ROOT, "peak heap (sum of pool peaks) %.0f MiB, max heap %.0f MiB%n", peak / 1048576.0,
                Runtime.getRuntime().maxMemory() / 1048576.0);
    }
}
