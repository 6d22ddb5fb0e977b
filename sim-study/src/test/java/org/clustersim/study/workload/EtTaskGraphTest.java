package org.clustersim.study.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.input.InputException;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.collective.Collectives;
import org.clustersim.strategies.collective.CommGroup;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.study.workload.et.EtDef;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EtTaskGraphTest {
    private static final Topology DGX = SwitchedClusterSpec.dgxH100(1).build();
    private static final ComputeCost BY_DURATION = new ComputeCost(null, 1.0);

    @TempDir
    Path tmp;

    private EtTaskGraph.Built built(EtFiles files, ComputeCost cost) throws IOException {
        files.write(tmp.resolve("et"));
        List<RankTrace> ranks = new EtTraceReader().read(EtTraceReader.files(tmp, "et", "workload.chakraTrace"));
        return EtTaskGraph.build(ranks, DGX, cost, "auto");
    }

    private static Timeline run(TaskGraph g) {
        return Simulation.run(g, DGX, RunOptions.DEFAULT).timeline();
    }

    private static int task(TaskGraph g, String name) {
        for (int t = 0; t < g.taskCount(); t++) {
            if (g.name(t).equals(name)) {
                return t;
            }
        }
        throw new AssertionError("no task " + name);
    }

    /** The collective alone, planned and simulated as the mapping should: the oracle for the step. */
    private static long allReduceAloneNs(int[] devices, long bytes) {
        TaskGraph.Builder b = TaskGraph.builder();
        for (int d = 0; d < devices.length; d++) {
            b.device(DGX.device(d).name(), DGX.device(d).node());
        }
        int[] streams = new int[devices.length];
        for (int i = 0; i < devices.length; i++) {
            streams[i] = b.stream(devices[i], "c", StreamKind.COMMUNICATION);
        }
        b.communicate("ar", "c", streams,
                Collectives.plan("auto", CollectiveOp.ALL_REDUCE, new CommGroup(devices), bytes, DGX).work());
        return run(b.build()).makespan();
    }

    @Test
    void twoRankStepIsComputeThenTheCollectivesSimulatedTime() throws IOException {
        long bytes = 256L << 20;
        EtFiles f = new EtFiles(2);
        for (int r = 0; r < 2; r++) {
            f.compute(r, 1, "backward", 3_000).collective(r, 2, "allreduce_grads", EtDef.CollectiveCommType.ALL_REDUCE,
                    bytes, null, 1);
        }
        EtTaskGraph.Built b = built(f, BY_DURATION);
        assertEquals(2, b.computes());
        assertEquals(1, b.collectives());
        Timeline t = run(b.graph());
        long collective = allReduceAloneNs(new int[] {0, 1}, bytes);
        assertTrue(collective > 0);
        assertEquals(3_000_000L + collective, t.makespan());
        int ar = task(b.graph(), "allreduce_grads");
        assertEquals(2, b.graph().streamCount(ar), "one task over both ranks' streams");
    }

    @Test
    void dependenciesAcrossRanksAndControlDepsAreKept() throws IOException {
        EtFiles f = new EtFiles(2);
        // rank 0: "late" is first in the file but waits (control dependency) on "early"
        f.add(0, EtFiles.node(1, "late", EtDef.NodeType.COMP_NODE).setDurationMicros(10).addCtrlDeps(2).build());
        f.compute(0, 2, "early", 100);
        f.collective(0, 3, "ar", EtDef.CollectiveCommType.ALL_REDUCE, 1 << 20, null, 1);
        f.compute(1, 1, "short", 50);
        f.collective(1, 2, "ar", EtDef.CollectiveCommType.ALL_REDUCE, 1 << 20, null, 1);
        f.compute(1, 3, "after", 20, 2);
        EtTaskGraph.Built b = built(f, BY_DURATION);
        TaskGraph g = b.graph();
        Timeline t = run(g);
        assertTrue(t.start(task(g, "late")) >= t.end(task(g, "early")));
        // the collective waits for the slower rank: early (100 us) then late (10 us)
        assertEquals(110_000L, t.start(task(g, "ar")));
        assertTrue(t.start(task(g, "after")) >= t.end(task(g, "ar")));
        assertTrue(t.end(task(g, "ar")) > t.start(task(g, "ar")));
    }

    @Test
    void processGroupsBecomeCollectivesOverTheirRanks() throws IOException {
        EtFiles f = new EtFiles(4);
        for (int r = 0; r < 4; r++) {
            f.collective(r, 1, "grads-" + (r / 2), EtDef.CollectiveCommType.ALL_REDUCE, 64 << 20, "dp" + (r / 2));
        }
        EtTaskGraph.Built b = built(f, BY_DURATION);
        assertEquals(2, b.collectives());
        TaskGraph g = b.graph();
        int first = task(g, "grads-0");
        int second = task(g, "grads-1");
        assertEquals(List.of(0, 1), devices(g, first));
        assertEquals(List.of(2, 3), devices(g, second));
        Timeline t = run(g);
        assertEquals(allReduceAloneNs(new int[] {0, 1}, 64 << 20), t.end(first) - t.start(first));
    }

    private static List<Integer> devices(TaskGraph g, int task) {
        List<Integer> out = new java.util.ArrayList<>();
        for (int i = 0; i < g.streamCount(task); i++) {
            out.add(g.streamDevice(g.taskStream(task, i)));
        }
        return out;
    }

    @Test
    void gatherAndScatterSendEachRanksShareToOrFromTheLowestRank() throws IOException {
        long bytes = 4L << 20;
        EtFiles f = new EtFiles(4);
        for (int r = 0; r < 4; r++) {
            f.collective(r, 1, "gather", EtDef.CollectiveCommType.GATHER, bytes, "g")
                    .collective(r, 2, "scatter", EtDef.CollectiveCommType.SCATTER, bytes, "g", 1);
        }
        EtTaskGraph.Built b = built(f, BY_DURATION);
        assertEquals(2, b.collectives());
        TaskGraph g = b.graph();
        for (String name : List.of("gather", "scatter")) {
            int t = task(g, name);
            assertEquals(4, g.streamCount(t), "one task over the group's four ranks");
            var flows = ((org.clustersim.core.engine.Work.Communication) g.work(t)).phases().stream()
                    .flatMap(p -> p.flows().stream()).toList();
            assertEquals(3, flows.size(), name + ": one flow per other rank");
            for (var fl : flows) {
                // each rank's quarter, on the wire with the protocol's overhead (as every planned flow)
                assertEquals(flows.get(0).bytes(), fl.bytes(), name + ": equal shares");
                assertTrue(fl.bytes() >= bytes / 4 && fl.bytes() < bytes / 3, name + ": a quarter: " + fl.bytes());
                assertEquals(0, name.equals("gather") ? fl.dstDevice() : fl.srcDevice(), name + ": rank 0 is the root");
            }
        }
        Timeline t = run(g);
        assertTrue(t.start(task(g, "scatter")) >= t.end(task(g, "gather")), "the scatter waits for the gather");
    }

    @Test
    void sendAndReceiveBecomeOneTransfer() throws IOException {
        EtFiles f = new EtFiles(2);
        f.compute(0, 1, "stage0", 40);
        f.add(0, EtFiles.node(2, "send_act", EtDef.NodeType.COMM_SEND_NODE).addDataDeps(1)
                .addAttr(EtFiles.intAttr("comm_dst", 1)).addAttr(EtFiles.intAttr("comm_size", 8 << 20)).build());
        f.add(1, EtFiles.node(1, "recv_act", EtDef.NodeType.COMM_RECV_NODE)
                .addAttr(EtFiles.intAttr("comm_src", 0)).addAttr(EtFiles.intAttr("comm_size", 8 << 20)).build());
        f.compute(1, 2, "stage1", 40, 1);
        EtTaskGraph.Built b = built(f, BY_DURATION);
        assertEquals(1, b.transfers());
        TaskGraph g = b.graph();
        Timeline t = run(g);
        int send = task(g, "send_act");
        assertEquals(List.of(0, 1), devices(g, send));
        assertEquals(40_000L, t.start(send));
        long transfer = t.end(send) - t.start(send);
        // 8 MiB over NVLink takes microseconds, not nothing
        assertTrue(transfer > 1_000, "transfer " + transfer);
        assertEquals(t.end(send), t.start(task(g, "stage1")));
        assertEquals(40_000L * 2 + transfer, t.makespan());
    }

    @Test
    void flopsAreTimedFromTheProfileAndDurationsScaled() throws IOException {
        EtFiles f = new EtFiles(1);
        f.add(0, EtFiles.node(1, "gemm", EtDef.NodeType.COMP_NODE).setDurationMicros(999_999)
                .addAttr(EtFiles.intAttr("num_ops", 2_000_000_000_000L)).build());
        f.add(0, EtFiles.node(2, "gemm_half", EtDef.NodeType.COMP_NODE).setDurationMicros(1)
                .addAttr(EtFiles.intAttr("num_ops", 1_000_000_000_000L)).build());
        f.compute(0, 3, "kernel", 800);
        ComputeCost cost = new ComputeCost(DeviceProfiles.bundled("h100-sxm"), 0.5);
        TaskGraph g = built(f, cost).graph();
        Timeline t = run(g);
        long gemm = t.end(task(g, "gemm")) - t.start(task(g, "gemm"));
        long half = t.end(task(g, "gemm_half")) - t.start(task(g, "gemm_half"));
        assertEquals(gemm, 2 * half, 1);
        // 2e12 FLOP on an H100 (under 1e15 FLOP/s dense bf16) takes over 2 ms, not the recorded 1 s
        assertTrue(gemm > 2_000_000 && gemm < 100_000_000, "gemm " + gemm);
        assertEquals(400_000L, t.end(task(g, "kernel")) - t.start(task(g, "kernel")));
    }

    @Test
    void astraSimMicrobenchmarksRunAsOneCollectiveOverEightRanks() {
        Path dir = Path.of("src/test/resources/org/clustersim/study/workload/astra-sim");
        for (String c : List.of("all_reduce", "all_gather", "reduce_scatter", "all_to_all")) {
            List<RankTrace> ranks = new EtTraceReader().read(EtTraceReader.files(dir, c, "workload.chakraTrace"));
            assertEquals(8, ranks.size());
            EtTaskGraph.Built b = EtTaskGraph.build(ranks, DGX, BY_DURATION, "auto");
            assertEquals(1, b.collectives(), c);
            int task = 0;
            assertEquals(8, b.graph().streamCount(task), c);
            assertTrue(run(b.graph()).makespan() > 0, c);
        }
    }

    @Test
    void aCollectiveMissingOnOneRankIsALocatedError() throws IOException {
        EtFiles f = new EtFiles(2);
        f.collective(0, 1, "ar0", EtDef.CollectiveCommType.ALL_REDUCE, 1024, null);
        f.collective(0, 2, "ar1", EtDef.CollectiveCommType.ALL_REDUCE, 1024, null);
        f.collective(1, 1, "ar0", EtDef.CollectiveCommType.ALL_REDUCE, 1024, null);
        InputException e = assertThrows(InputException.class, () -> built(f, BY_DURATION));
        assertTrue(e.getMessage().contains("job.0.et: node 2 (ar1)"), e.getMessage());
        assertTrue(e.getMessage().contains("rank 1"), e.getMessage());
    }

    @Test
    void collectivesInOppositeOrdersAreACycleNotAHang() throws IOException {
        EtFiles f = new EtFiles(2);
        f.collective(0, 1, "a", EtDef.CollectiveCommType.ALL_REDUCE, 1024, "x");
        f.collective(0, 2, "b", EtDef.CollectiveCommType.ALL_REDUCE, 1024, "y", 1);
        f.collective(1, 1, "b", EtDef.CollectiveCommType.ALL_REDUCE, 1024, "y");
        f.collective(1, 2, "a", EtDef.CollectiveCommType.ALL_REDUCE, 1024, "x", 1);
        InputException e = assertThrows(InputException.class, () -> built(f, BY_DURATION));
        assertTrue(e.getMessage().contains("cycle"), e.getMessage());
    }

    @Test
    void moreRanksThanGpusIsRefused() throws IOException {
        EtFiles f = new EtFiles(9);
        for (int r = 0; r < 9; r++) {
            f.compute(r, 1, "c", 1);
        }
        InputException e = assertThrows(InputException.class, () -> built(f, BY_DURATION));
        assertTrue(e.getMessage().contains("9 rank traces"), e.getMessage());
    }
}
