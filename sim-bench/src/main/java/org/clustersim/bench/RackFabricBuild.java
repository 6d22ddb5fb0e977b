package org.clustersim.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.clustersim.core.Simulation;
import org.clustersim.topology.RackPodSpec;
import org.clustersim.topology.SuperPodSpec;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;

/**
 * Benchmark: building the scale-out fabric of GB200 NVL72 racks ({@link RackPodSpec}) at about
 * 16k GPUs (228 racks, 16,416 GPUs) beside the 64-SU H100 SuperPOD (16,384 GPUs), then the
 * data-parallel all-reduce across racks: one ring per rail (GPU position), every rack's GPU of
 * that rail, all rails at once, 1 GiB each, under the flow model. Prints wall times.
 *
 * <p>Run: {@code java -Xmx3g -cp sim-bench/target/benchmarks.jar org.clustersim.bench.RackFabricBuild
 * [racks] [ring racks] [rounds] [ecmp|adaptive]}
 */
public final class RackFabricBuild {
    private RackFabricBuild() {
    }

    public static void main(String[] args) {
        int racks = args.length > 0 ? Integer.parseInt(args[0]) : 228;
        int ringRacks = args.length > 1 ? Integer.parseInt(args[1]) : 39;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        Simulation.Routing routing = args.length > 3 ? Simulation.Routing.valueOf(args[3].toUpperCase(Locale.ROOT))
                : Simulation.Routing.ECMP;
        long bytes = 1L << 30;
        for (int round = 0; round < rounds; round++) {
            long t0 = System.nanoTime();
            Topology pod = SuperPodSpec.h100(64).build();
            long t1 = System.nanoTime();
            Topology rackPod = RackPodSpec.of(SwitchedClusterSpec.gb200Nvl72(1), racks).build();
            long t2 = System.nanoTime();
            System.out.printf(Locale.ROOT, "round %d: build superpod-h100-64su (%d GPUs, %d links) %.3f s, "
                    + "gb200-nvl72 x %d racks (%d GPUs, %d links) %.3f s%n", round, pod.deviceCount(),
                    pod.links().size(), (t1 - t0) / 1e9, racks, rackPod.deviceCount(), rackPod.links().size(),
                    (t2 - t1) / 1e9);
        }
        Topology t = RackPodSpec.of(SwitchedClusterSpec.gb200Nvl72(1), ringRacks).build();
        List<int[]> groups = new ArrayList<>();
        for (int rail = 0; rail < 72; rail++) {
            int[] d = new int[ringRacks];
            for (int r = 0; r < ringRacks; r++) {
                d[r] = r * 72 + rail;
            }
            groups.add(d);
        }
        RingAllReduces rings = RingAllReduces.over(t, bytes, groups);
        long t3 = System.nanoTime();
        long slowest = RingAllReduces.slowestNs(rings.run(routing));
        long t4 = System.nanoTime();
        System.out.printf(Locale.ROOT, "72 concurrent ring all-reduces of 1 GiB over %d racks (one per rail), %s routing: "
                + "simulated %.3f ms (slowest), busbw %.1f GB/s, wall %.3f s%n", ringRacks, routing, slowest / 1e6,
                rings.busBandwidth(slowest, ringRacks) / 1e9, (t4 - t3) / 1e9);
    }
}
