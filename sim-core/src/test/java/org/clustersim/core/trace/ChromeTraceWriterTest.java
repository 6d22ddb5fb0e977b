package org.clustersim.core.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.Work;
import org.clustersim.topology.AcceleratorSpec;
import org.clustersim.topology.SwitchedClusterSpec;
import org.junit.jupiter.api.Test;

class ChromeTraceWriterTest {

    @Test
    void microsecondsKeepExactNanoseconds() {
        assertEquals("0.000", ChromeTraceWriter.micros(0));
        assertEquals("0.007", ChromeTraceWriter.micros(7));
        assertEquals("0.070", ChromeTraceWriter.micros(70));
        assertEquals("1.234", ChromeTraceWriter.micros(1234));
        assertEquals("25148223.001", ChromeTraceWriter.micros(25_148_223_001L));
    }

    @Test
    void drawsTasksPerStreamAndJoinsSendToReceive() throws IOException {
        TaskGraph.Builder b = TaskGraph.builder();
        b.device("node0.gpu0", 0);
        b.device("node1.gpu0", 1);
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int send = b.stream(0, "send", StreamKind.COMMUNICATION);
        int recv = b.stream(1, "recv", StreamKind.COMMUNICATION);
        int f = b.compute("F mb0", "forward", c0, 1500, 3e9);
        b.communicate("act", "pp-p2p", new int[] {send, recv}, Work.Communication.pointToPoint(0, 1, 100), f);
        var topo = new SwitchedClusterSpec("t", AcceleratorSpec.H100_SXM, 2, 1, 100e9, 0, 100e9, 0, 0).build();
        Timeline t = Simulation.run(b.build(), topo);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ChromeTraceWriter.write(t, out, Map.of("scenario", "x"));
        JsonNode root = new ObjectMapper().readTree(out.toByteArray());
        assertEquals("x", root.get("otherData").get("scenario").asText());
        List<JsonNode> x = new ArrayList<>();
        List<String> processes = new ArrayList<>();
        List<String> flows = new ArrayList<>();
        List<String> counters = new ArrayList<>();
        for (JsonNode e : root.get("traceEvents")) {
            switch (e.get("ph").asText()) {
                case "X" -> x.add(e);
                case "M" -> {
                    if (e.get("name").asText().equals("process_name")) {
                        processes.add(e.get("args").get("name").asText());
                    }
                }
                case "C" -> counters.add(e.get("name").asText() + "@" + e.get("ts").asDouble() + "="
                        + e.get("args").get("GB/s").asDouble());
                default -> flows.add(e.get("ph").asText() + "@" + e.get("pid").asInt() + "/" + e.get("tid").asInt()
                        + "@" + e.get("ts").asDouble());
            }
        }
        assertEquals(List.of("node 0", "node 1", "counters"), processes);
        // 100 bytes at 100 GB/s: the first hop of the route carries 100 GB/s from 1.5 us to 1.501 us
        assertEquals("link node0.gpu0->node0.nic0@1.5=100.0", counters.get(0));
        assertEquals("link node0.gpu0->node0.nic0@1.501=0.0", counters.get(1));
        assertEquals(4 * 2, counters.size(), "four links on the route, two samples each");
        assertEquals(3, x.size(), "compute once, the send on both ends");
        assertEquals("F mb0", x.get(0).get("name").asText());
        assertEquals(1.5, x.get(0).get("dur").asDouble());
        // the send starts when F ends; both flow ends sit at its start, on sender then receiver
        assertEquals(List.of("s@1/2@1.5", "f@2/3@1.5"), flows);
        assertEquals(100, x.get(1).get("args").get("bytes").asLong());
    }

    @Test
    void aSliceStretchedByCommunicationCarriesItsSlowdownAndLoss() throws IOException {
        TaskGraph.Builder b = TaskGraph.builder();
        b.device("node0.gpu0", 0);
        b.device("node0.gpu1", 0);
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int s0 = b.stream(0, "dp", StreamKind.COMMUNICATION);
        int s1 = b.stream(1, "dp", StreamKind.COMMUNICATION);
        b.compute("gemm", "forward", c0, 1000, 1e9);
        b.compute("after", "forward", c0, 1000, 1e9);
        // 100 kB at 100 GB/s: 1000 ns, beside the first kernel only
        b.communicate("nccl", "dp-comm", new int[] {s0, s1}, Work.Communication.pointToPoint(0, 1, 100_000));
        var topo = new SwitchedClusterSpec("t", AcceleratorSpec.H100_SXM, 1, 2, 100e9, 0, 100e9, 0, 0).build();
        Timeline t = Simulation.run(b.build(), topo, RunOptions.DEFAULT.withLinkTracks(false)
                .withInterference(task -> task.name().equals("nccl") ? 0.2 : 0)).timeline();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ChromeTraceWriter.write(t, out, Map.of());
        Map<String, JsonNode> args = new java.util.HashMap<>();
        for (JsonNode e : new ObjectMapper().readTree(out.toByteArray()).get("traceEvents")) {
            if (e.get("ph").asText().equals("X")) {
                args.put(e.get("name").asText(), e.get("args"));
            }
        }
        // 1000 ns at 0.8 does 800 of the kernel's work; 200 more at full speed: 1200 ns, 200 lost
        assertEquals(1.2, args.get("gemm").get("slowdown by communication").asDouble(), 1e-9);
        assertEquals(0.2, args.get("gemm").get("lost to communication (us)").asDouble(), 1e-9);
        assertTrue(args.get("after").get("slowdown by communication") == null, "the next kernel ran alone");
    }
}
