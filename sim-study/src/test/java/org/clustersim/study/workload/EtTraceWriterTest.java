package org.clustersim.study.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.clustersim.core.engine.CommCall;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.collective.Collectives;
import org.clustersim.strategies.collective.CommGroup;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EtTraceWriterTest {
    private static final Topology DGX = SwitchedClusterSpec.dgxH100(1).build();

    @TempDir
    Path tmp;

    /**
     * Two GPUs: a compute each, an all-reduce of both, a send from 0 to 1 and a compute on 1 after
     * it; and on GPU 0 two computes queued on one stream with no dependency between them.
     */
    private static TaskGraph graph() {
        TaskGraph.Builder b = TaskGraph.builder();
        for (int d = 0; d < 2; d++) {
            b.device(DGX.device(d).name(), DGX.device(d).node());
        }
        int[] compute = {b.stream(0, "compute", StreamKind.COMPUTE), b.stream(1, "compute", StreamKind.COMPUTE)};
        int[] dp = {b.stream(0, "dp", StreamKind.COMMUNICATION), b.stream(1, "dp", StreamKind.COMMUNICATION)};
        int c0 = b.compute("fwd 0", "forward", compute[0], 1_500, 3e12);
        int c1 = b.compute("fwd 1", "forward", compute[1], 2_400, 0);
        Work.Communication ar = Collectives.plan("auto", CollectiveOp.ALL_REDUCE, new CommGroup(new int[] {0, 1}),
                64L << 20, DGX).work().as(new CommCall("allreduce", 64L << 20, new int[] {0, 1}));
        int reduce = b.communicate("grads", "dp-comm", dp, ar, c0, c1);
        int send = b.communicate("act 0->1", "pp-p2p", new int[] {b.stream(0, "send", StreamKind.COMMUNICATION),
            b.stream(1, "recv", StreamKind.COMMUNICATION)}, Work.Communication.pointToPoint(0, 1, 4096), reduce);
        b.compute("bwd 1", "backward", compute[1], 7_000, 0, send);
        b.compute("opt 0", "optimizer", compute[0], 900, 0);
        return b.build();
    }

    private static RankTrace readBack(EtTraceWriter w, int rank, Path dir) throws IOException {
        Path f = dir.resolve("job." + rank + ".et");
        Files.createDirectories(dir);
        try (OutputStream out = Files.newOutputStream(f)) {
            w.write(rank, out);
        }
        return new EtTraceReader().read(f, rank);
    }

    private static EtNode named(RankTrace t, String name) {
        return t.nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void eachTaskIsANodeOnEveryDeviceItOccupiesWithItsAttributes() throws IOException {
        EtTraceWriter w = EtTraceWriter.of(graph(), "test");
        RankTrace r0 = readBack(w, 0, tmp);
        RankTrace r1 = readBack(w, 1, tmp);
        assertEquals(List.of("fwd 0", "grads", "act 0->1", "opt 0"), r0.nodes().stream().map(EtNode::name).toList());
        assertEquals(List.of("fwd 1", "grads", "act 0->1", "bwd 1"), r1.nodes().stream().map(EtNode::name).toList());

        EtNode fwd = named(r0, "fwd 0");
        assertEquals(EtNode.Kind.COMPUTE, fwd.kind());
        assertEquals(2, fwd.durationMicros(), "1.5 us rounds to 2");
        assertEquals(3e12, fwd.numOps());
        assertEquals(0, named(r1, "fwd 1").numOps(), "no FLOPs counted: no num_ops");
        assertEquals("compute", fwd.stream());

        EtNode g0 = named(r0, "grads");
        EtNode g1 = named(r1, "grads");
        assertEquals(EtNode.Kind.COLLECTIVE, g0.kind());
        assertEquals(0, g0.commType(), "ALL_REDUCE");
        assertEquals(64L << 20, g0.commBytes());
        assertEquals(g0.processGroup(), g1.processGroup(), "one group, one name on both ranks");
        assertEquals(java.util.Map.of(g0.processGroup(), List.of(0, 1)), w.processGroups());
        assertArrayEquals(new long[] {fwd.id()}, g0.dataDeps());
        assertEquals("dp", g1.stream());

        EtNode send = named(r0, "act 0->1");
        EtNode recv = named(r1, "act 0->1");
        assertEquals(EtNode.Kind.SEND, send.kind());
        assertEquals(EtNode.Kind.RECV, recv.kind());
        assertEquals(1, send.commDst());
        assertEquals(0, recv.commSrc());
        assertEquals(send.commTag(), recv.commTag());
        assertEquals(4096, send.commBytes());
        assertEquals("send", send.stream());
        assertEquals("recv", recv.stream());
        assertArrayEquals(new long[] {g0.id()}, send.dataDeps());
        assertArrayEquals(new long[] {recv.id()}, named(r1, "bwd 1").dataDeps());

        // queued after fwd 0 on GPU 0's compute stream without depending on it: a control dependency
        EtNode opt = named(r0, "opt 0");
        assertArrayEquals(new long[0], opt.dataDeps());
        assertArrayEquals(new long[] {fwd.id()}, opt.ctrlDeps());

        EtTraceWriter.Counts c = w.counts();
        assertEquals(new EtTraceWriter.Counts(4, 1, 1, 0, 0), c);
    }

    @Test
    void theSameGraphGivesTheSameBytes() throws IOException {
        for (int r = 0; r < 2; r++) {
            ByteArrayOutputStream a = new ByteArrayOutputStream();
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            EtTraceWriter.of(graph(), "test").write(r, a);
            EtTraceWriter.of(graph(), "test").write(r, b);
            assertArrayEquals(a.toByteArray(), b.toByteArray());
        }
    }

    @Test
    void communicationWithoutADescriptionIsWrittenAsTheSendsOfItsFlows() throws IOException {
        TaskGraph.Builder b = TaskGraph.builder();
        for (int d = 0; d < 3; d++) {
            b.device(DGX.device(d).name(), DGX.device(d).node());
        }
        Work.Communication ring = Collectives.plan("ring", CollectiveOp.ALL_GATHER, new CommGroup(new int[] {0, 1, 2}),
                3L << 20, DGX).work();
        int[] streams = new int[3];
        for (int d = 0; d < 3; d++) {
            streams[d] = b.stream(d, "cp", StreamKind.COMMUNICATION);
        }
        b.communicate("gather", "cp-comm", streams, ring);
        EtTraceWriter w = EtTraceWriter.of(b.build(), "test");
        RankTrace r1 = readBack(w, 1, tmp);
        assertEquals(2, r1.nodes().size(), "a ring: GPU 1 sends to 2 and receives from 0");
        EtNode send = r1.nodes().stream().filter(n -> n.kind() == EtNode.Kind.SEND).findFirst().orElseThrow();
        EtNode recv = r1.nodes().stream().filter(n -> n.kind() == EtNode.Kind.RECV).findFirst().orElseThrow();
        assertEquals(2, send.commDst());
        assertEquals(0, recv.commSrc());
        assertEquals("cp/send", send.stream());
        assertEquals("cp/recv", recv.stream());
        long flowBytes = ring.phases().stream().flatMap(p -> p.flows().stream())
                .filter(f -> f.srcDevice() == 1).mapToLong(f -> f.bytes()).sum();
        assertEquals(flowBytes, send.commBytes(), "the bytes of every phase's flow from 1 to 2");
        assertEquals(1, w.counts().undescribed());
    }
}
