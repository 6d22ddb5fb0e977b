package org.clustersim.study.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.input.InputException;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.collective.Collectives;
import org.clustersim.strategies.collective.CommGroup;
import org.clustersim.study.workload.et.EtDef;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataParallelCopiesTest {
    private static final Topology EIGHT_SERVERS = SwitchedClusterSpec.dgxH100(8).build();
    private static final ComputeCost BY_DURATION = new ComputeCost(null, 1.0);

    @TempDir
    Path tmp;

    private List<RankTrace> traced(EtFiles f) throws IOException {
        f.write(tmp.resolve("et"));
        return new EtTraceReader().read(EtTraceReader.files(tmp, "et", "workload.chakraTrace"));
    }

    private static List<List<Integer>> collectiveGroups(TaskGraph g) {
        List<List<Integer>> out = new ArrayList<>();
        for (int t = 0; t < g.taskCount(); t++) {
            if (!g.isCompute(t)) {
                List<Integer> devices = new ArrayList<>();
                for (int i = 0; i < g.streamCount(t); i++) {
                    devices.add(g.streamDevice(g.taskStream(t, i)));
                }
                out.add(devices);
            }
        }
        return out;
    }

    @Test
    void anEightRankDataParallelTraceRunsAtSixtyFourWithItsAllReduceOverAll() throws IOException {
        long bytes = 128L << 20;
        EtFiles f = new EtFiles(8);
        for (int r = 0; r < 8; r++) {
            f.compute(r, 1, "backward", 2_000).collective(r, 2, "grads", EtDef.CollectiveCommType.ALL_REDUCE, bytes,
                    null, 1);
        }
        List<RankTrace> ranks = DataParallelCopies.scale(traced(f), 64, "workload.ranks");
        assertEquals(64, ranks.size());
        EtTaskGraph.Built b = EtTaskGraph.build(ranks, EIGHT_SERVERS, BY_DURATION, "auto");
        assertEquals(64, b.computes());
        assertEquals(1, b.collectives());
        assertEquals(64, collectiveGroups(b.graph()).get(0).size());
        // oracle: the 64-rank all-reduce on its own
        TaskGraph.Builder alone = TaskGraph.builder();
        int[] devices = new int[64];
        int[] streams = new int[64];
        for (int d = 0; d < 64; d++) {
            alone.device(EIGHT_SERVERS.device(d).name(), EIGHT_SERVERS.device(d).node());
            devices[d] = d;
            streams[d] = alone.stream(d, "c", StreamKind.COMMUNICATION);
        }
        alone.communicate("ar", "c", streams, Collectives.plan("auto", CollectiveOp.ALL_REDUCE, new CommGroup(devices),
                bytes, EIGHT_SERVERS).work());
        long collective = Simulation.run(alone.build(), EIGHT_SERVERS, RunOptions.DEFAULT).timeline().makespan();
        long step = Simulation.run(b.graph(), EIGHT_SERVERS, RunOptions.DEFAULT).timeline().makespan();
        assertEquals(2_000_000L + collective, step);
    }

    @Test
    void smallerGroupsAndTransfersStayWithinTheirCopy() throws IOException {
        EtFiles f = new EtFiles(4);
        for (int r = 0; r < 4; r++) {
            f.collective(r, 1, "tp", EtDef.CollectiveCommType.ALL_GATHER, 1 << 20, "tp" + (r / 2));
            f.collective(r, 2, "dp", EtDef.CollectiveCommType.REDUCE_SCATTER, 1 << 20, "dp", 1);
        }
        f.add(0, EtFiles.node(3, "send", EtDef.NodeType.COMM_SEND_NODE).addDataDeps(2)
                .addAttr(EtFiles.intAttr("comm_dst", 3)).addAttr(EtFiles.intAttr("comm_size", 4096)).build());
        f.add(3, EtFiles.node(3, "recv", EtDef.NodeType.COMM_RECV_NODE)
                .addAttr(EtFiles.intAttr("comm_src", 0)).addAttr(EtFiles.intAttr("comm_size", 4096)).build());
        List<RankTrace> ranks = DataParallelCopies.scale(traced(f), 8, "workload.ranks");
        List<List<Integer>> groups = collectiveGroups(EtTaskGraph.build(ranks, EIGHT_SERVERS, BY_DURATION, "auto")
                .graph());
        assertTrue(groups.contains(List.of(0, 1)), groups.toString());
        assertTrue(groups.contains(List.of(6, 7)), groups.toString());
        assertTrue(groups.contains(List.of(0, 1, 2, 3, 4, 5, 6, 7)), groups.toString());
        assertTrue(groups.contains(List.of(0, 3)), groups.toString());
        assertTrue(groups.contains(List.of(4, 7)), groups.toString());
        assertEquals(7, groups.size(), groups.toString());
    }

    @Test
    void refusedWithoutADataParallelGroupOrForAnUnevenCount() throws IOException {
        EtFiles f = new EtFiles(4);
        for (int r = 0; r < 4; r++) {
            f.collective(r, 1, "tp", EtDef.CollectiveCommType.ALL_GATHER, 1 << 20, "tp" + (r / 2));
        }
        List<RankTrace> ranks = traced(f);
        String none = assertThrows(InputException.class, () -> DataParallelCopies.scale(ranks, 8, "workload.ranks"))
                .getMessage();
        assertTrue(none.contains("no data-parallel group"), none);
        String uneven = assertThrows(InputException.class, () -> DataParallelCopies.scale(ranks, 6, "workload.ranks"))
                .getMessage();
        assertTrue(uneven.contains("whole multiple of 4"), uneven);
    }
}
