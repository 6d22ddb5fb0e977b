package org.clustersim.study.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.input.InputException;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/**
 * The traces Chakra's own generator writes (src/test/resources/.../chakra-generator, README there):
 * each microbenchmark reads with the nodes the generator's code emits and maps onto the tasks the
 * mapping table promises. The expected values below are the generator's (its argparse defaults:
 * 5 us compute, 65536-byte collectives, 1024-byte tensors; 8 ranks as it was run), not ours.
 */
class ChakraGeneratorTracesTest {
    private static final Path DIR = Path.of("src/test/resources/org/clustersim/study/workload/chakra-generator");
    private static final Topology DGX = SwitchedClusterSpec.dgxH100(1).build();
    private static final ComputeCost BY_DURATION = new ComputeCost(null, 1.0);
    private static final int NPUS = 8;
    private static final long RUNTIME_MICROS = 5;
    private static final long COMM_SIZE = 65536;

    /** Per benchmark, the kinds of its nodes in file order, as generator.py writes them. */
    private static final Map<String, List<EtNode.Kind>> KINDS = Map.ofEntries(
            Map.entry("one_metadata_node_all_types", List.of(EtNode.Kind.OTHER)),
            Map.entry("one_remote_mem_load_node", List.of(EtNode.Kind.MEMORY)),
            Map.entry("one_remote_mem_store_node", List.of(EtNode.Kind.MEMORY)),
            Map.entry("one_comp_node", List.of(EtNode.Kind.COMPUTE)),
            Map.entry("two_comp_nodes_independent", List.of(EtNode.Kind.COMPUTE, EtNode.Kind.COMPUTE)),
            Map.entry("two_comp_nodes_dependent", List.of(EtNode.Kind.COMPUTE, EtNode.Kind.COMPUTE)),
            Map.entry("ALL_REDUCE", List.of(EtNode.Kind.COLLECTIVE)),
            Map.entry("ALL_TO_ALL", List.of(EtNode.Kind.COLLECTIVE)),
            Map.entry("ALL_GATHER", List.of(EtNode.Kind.COLLECTIVE)),
            Map.entry("REDUCE_SCATTER", List.of(EtNode.Kind.COLLECTIVE)),
            Map.entry("BROADCAST", List.of(EtNode.Kind.COLLECTIVE)),
            Map.entry("BARRIER", List.of(EtNode.Kind.COLLECTIVE)),
            Map.entry("one_comm_send_node", List.of(EtNode.Kind.SEND)),
            Map.entry("one_comm_recv_node", List.of(EtNode.Kind.RECV)));

    /** Chakra's CollectiveCommType numbers the generator writes per collective benchmark. */
    private static final Map<String, Integer> COMM_TYPE = Map.of("ALL_REDUCE", 0, "ALL_GATHER", 2, "BROADCAST", 5,
            "ALL_TO_ALL", 6, "REDUCE_SCATTER", 7, "BARRIER", 9);

    private static List<RankTrace> read(String benchmark) {
        return new EtTraceReader().read(EtTraceReader.files(DIR, benchmark + ".*.et", "workload.chakraTrace"));
    }

    private static long stepNs(String benchmark) {
        EtTaskGraph.Built b = EtTaskGraph.build(read(benchmark), DGX, BY_DURATION, "auto");
        return Simulation.run(b.graph(), DGX, RunOptions.DEFAULT).timeline().makespan();
    }

    @Test
    void everyBenchmarkReadsWithTheNodesTheGeneratorWrites() {
        Set<Long> ids = new HashSet<>();
        for (Map.Entry<String, List<EtNode.Kind>> e : KINDS.entrySet()) {
            String b = e.getKey();
            List<RankTrace> ranks = read(b);
            assertEquals(NPUS, ranks.size(), b);
            for (RankTrace t : ranks) {
                assertTrue(t.file().getFileName().toString().equals(b + "." + t.rank() + ".et"), t.file().toString());
                assertEquals("1.0.0", t.version(), b);
                List<EtNode.Kind> kinds = new ArrayList<>();
                for (EtNode n : t.nodes()) {
                    kinds.add(n.kind());
                    assertFalse(n.cpuOp(), b);
                    assertTrue(ids.add(n.id()), "one id counter over the whole run: " + n.id());
                    if (n.kind() == EtNode.Kind.COMPUTE) {
                        assertEquals(RUNTIME_MICROS, n.durationMicros(), b);
                        assertEquals(0.0, n.numOps(), b);
                    }
                    if (n.kind() == EtNode.Kind.COLLECTIVE) {
                        assertEquals(COMM_TYPE.get(b), n.commType(), b);
                        assertEquals(b.equals("BARRIER") ? 0 : COMM_SIZE, n.commBytes(), b);
                        assertEquals("", n.processGroup(), b);
                    }
                    if (n.kind() == EtNode.Kind.SEND || n.kind() == EtNode.Kind.RECV) {
                        // the generator names no peer and gives the size as tensor_size only
                        assertEquals(-1, n.commSrc(), b);
                        assertEquals(-1, n.commDst(), b);
                        assertEquals(0, n.commBytes(), b);
                    }
                }
                assertEquals(e.getValue(), kinds, b + " rank " + t.rank());
                List<EtNode> nodes = t.nodes();
                if (b.equals("two_comp_nodes_dependent")) {
                    assertArrayEquals(new long[] {nodes.get(0).id()}, nodes.get(1).dataDeps());
                } else {
                    for (EtNode n : nodes) {
                        assertEquals(0, n.deps().length, b);
                    }
                }
            }
        }
        // 8 ranks x (1 + 1 + 1 + 1 + 2 + 2 + 6 x 1 + 1 + 1) nodes, ids 0 to 127
        assertEquals(128, ids.size());
        assertEquals(Set.of(0L, 127L), Set.of(ids.stream().min(Long::compare).get(), ids.stream().max(Long::compare)
                .get()));
    }

    @Test
    void benchmarksMapOntoTheTasksTheMappingPromises() {
        record Counts(int computes, int collectives, int transfers, int untimed) {
        }
        Map<String, Counts> expected = Map.ofEntries(
                Map.entry("one_metadata_node_all_types", new Counts(0, 0, 0, NPUS)),
                Map.entry("one_remote_mem_load_node", new Counts(0, 0, 0, NPUS)),
                Map.entry("one_remote_mem_store_node", new Counts(0, 0, 0, NPUS)),
                Map.entry("one_comp_node", new Counts(NPUS, 0, 0, 0)),
                Map.entry("two_comp_nodes_independent", new Counts(2 * NPUS, 0, 0, 0)),
                Map.entry("two_comp_nodes_dependent", new Counts(2 * NPUS, 0, 0, 0)),
                Map.entry("ALL_REDUCE", new Counts(0, 1, 0, 0)),
                Map.entry("ALL_TO_ALL", new Counts(0, 1, 0, 0)),
                Map.entry("ALL_GATHER", new Counts(0, 1, 0, 0)),
                Map.entry("REDUCE_SCATTER", new Counts(0, 1, 0, 0)),
                Map.entry("BROADCAST", new Counts(0, 1, 0, 0)),
                Map.entry("BARRIER", new Counts(0, 1, 0, 0)));
        for (Map.Entry<String, Counts> e : expected.entrySet()) {
            EtTaskGraph.Built b = EtTaskGraph.build(read(e.getKey()), DGX, BY_DURATION, "auto");
            assertEquals(e.getValue(), new Counts(b.computes(), b.collectives(), b.transfers(), b.untimed()),
                    e.getKey());
            assertEquals(NPUS, b.ranks(), e.getKey());
        }
    }

    @Test
    void computeBenchmarksTakeTheGeneratorsRuntime() {
        long runtimeNs = RUNTIME_MICROS * 1000;
        assertEquals(runtimeNs, stepNs("one_comp_node"));
        assertEquals(2 * runtimeNs, stepNs("two_comp_nodes_dependent"));
        // independent, but both on the rank's one compute stream (as ASTRA-sim runs one GPU op at a time)
        assertEquals(2 * runtimeNs, stepNs("two_comp_nodes_independent"));
        // memory and metadata nodes take no time
        assertEquals(0, stepNs("one_remote_mem_load_node"));
        assertEquals(0, stepNs("one_metadata_node_all_types"));
    }

    @Test
    void collectiveBenchmarksKeepTheCollectivesOrder() {
        long allReduce = stepNs("ALL_REDUCE");
        long allGather = stepNs("ALL_GATHER");
        long reduceScatter = stepNs("REDUCE_SCATTER");
        long barrier = stepNs("BARRIER");
        // an all-reduce is a reduce-scatter then an all-gather of the same buffer
        assertTrue(allReduce > allGather, allReduce + " vs " + allGather);
        assertTrue(allReduce > reduceScatter, allReduce + " vs " + reduceScatter);
        // a barrier moves 8 bytes per rank, not 64 KiB
        assertTrue(barrier < allReduce, barrier + " vs " + allReduce);
        assertTrue(barrier > 0);
        assertTrue(stepNs("ALL_TO_ALL") > 0);
        assertTrue(stepNs("BROADCAST") > 0);
    }

    @Test
    void sendsAndReceivesWithoutAPeerAreALocatedError() {
        InputException e = assertThrows(InputException.class,
                () -> EtTaskGraph.build(read("one_comm_send_node"), DGX, BY_DURATION, "auto"));
        assertTrue(e.getMessage().contains("one_comm_send_node.0.et: node 112 (COMM_SEND_NODE)"), e.getMessage());
        assertTrue(e.getMessage().contains("comm_dst is missing"), e.getMessage());
        InputException r = assertThrows(InputException.class,
                () -> EtTaskGraph.build(read("one_comm_recv_node"), DGX, BY_DURATION, "auto"));
        assertTrue(r.getMessage().contains("one_comm_recv_node.0.et: node 120 (COMM_RECV_NODE)"), r.getMessage());
        assertTrue(r.getMessage().contains("comm_src is missing"), r.getMessage());
    }

    @Test
    void theWholeFolderIsRefusedAsRepeatedRanks() {
        // fourteen benchmarks share the folder: naming it, not a glob, gives each rank fourteen files
        InputException e = assertThrows(InputException.class,
                () -> EtTraceReader.files(DIR.getParent(), "chakra-generator", "workload.chakraTrace"));
        assertTrue(e.getMessage().contains("both name rank"), e.getMessage());
    }
}
