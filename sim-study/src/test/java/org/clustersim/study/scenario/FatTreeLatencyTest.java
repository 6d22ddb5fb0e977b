package org.clustersim.study.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.clustersim.core.Simulation;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;
import org.clustersim.topology.FatTreeSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fabric: fat-tree} honours the cluster's hop latencies as the single-switch and
 * rail-optimized fabrics do: a small transfer inside a server crosses two NVLink hops (GPU,
 * NVSwitch, GPU); one between servers two GPU-NIC and two NIC-leaf hops (GPU, NIC, leaf, NIC,
 * GPU; the two servers' GPUs share the first leaf).
 */
class FatTreeLatencyTest {
    @TempDir
    Path dir;

    private static final String SCENARIO = """
            name: fat
            cluster:
              preset: dgx-h100
              nodes: 2
              fabric: fat-tree
            %s
            model:
              preset: gpt3-175b
            parallelism:
              pp: 16
            schedule:
              kind: gpipe
            training:
              globalBatch: 16
              microBatch: 1
              seqLen: 1024
            """;

    private Topology topology(String extra) throws IOException {
        Path p = dir.resolve("s" + extra.hashCode() + ".yaml");
        Files.writeString(p, SCENARIO.formatted(extra));
        Scenario s = new ScenarioReader().read(p);
        assertTrue(s.cluster() instanceof FatTreeSpec, "a fat tree: " + s.cluster().describe());
        return s.cluster().build();
    }

    /** Simulated time of one 64-byte send from device {@code src} to {@code dst}. */
    private static long send(Topology t, int src, int dst) {
        TaskGraph.Builder b = TaskGraph.builder();
        for (int d = 0; d < 16; d++) {
            b.device("gpu" + d, d / 8);
        }
        int out = b.stream(src, "send", StreamKind.COMMUNICATION);
        int in = b.stream(dst, "recv", StreamKind.COMMUNICATION);
        b.communicate("x", "pp-p2p", new int[] {out, in}, Work.Communication.pointToPoint(src, dst, 64));
        return Simulation.run(b.build(), t).makespan();
    }

    @Test
    void eachHopLatencyMovesASmallTransferByItsHopsOnTheRoute() throws IOException {
        Topology base = topology("");
        long intra = send(base, 0, 1);
        long inter = send(base, 0, 8);
        // the DGX defaults: 2 x 250 ns NVLink; 2 x 200 ns GPU-NIC + 2 x 1200 ns NIC-leaf
        assertEquals(2 * 250, base.route(0, 1).latencyNs());
        assertEquals(2 * 200 + 2 * 1200, base.route(0, 8).latencyNs());

        Topology nvlink = topology("  nvlinkLatencyNs: 1250");
        assertEquals(2 * 1000, send(nvlink, 0, 1) - intra, "two NVLink hops, 1000 ns longer each");
        assertEquals(0, send(nvlink, 0, 8) - inter, "no NVLink hop between servers");

        Topology gpuNic = topology("  gpuNicLatencyNs: 700");
        assertEquals(2 * 500, send(gpuNic, 0, 8) - inter, "two GPU-NIC hops, 500 ns longer each");
        assertEquals(0, send(gpuNic, 0, 1) - intra);

        Topology nic = topology("  nicLatencyNs: 4200");
        assertEquals(2 * 3000, send(nic, 0, 8) - inter, "two NIC-leaf hops, 3000 ns longer each");
        assertEquals(0, send(nic, 0, 1) - intra);
    }
}
