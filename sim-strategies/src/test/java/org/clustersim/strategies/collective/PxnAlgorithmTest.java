package org.clustersim.strategies.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.topology.Link;
import org.clustersim.topology.LinkKind;
import org.clustersim.topology.SuperPodSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

class PxnAlgorithmTest {
    /** A rail-optimised SU; the group is 32 GPUs on its first 4 servers. */
    static final Topology POD = SuperPodSpec.h100(1).build();
    static final CommGroup GROUP = new CommGroup(java.util.stream.IntStream.range(0, 32).toArray());

    /** Logical bytes leaving each GPU over its NIC (wire bytes times the network efficiency). */
    static Map<Integer, Double> nicBytes(List<Phase> phases) {
        Map<Integer, Double> out = new HashMap<>();
        for (Phase ph : phases) {
            for (Flow f : ph.flows()) {
                for (Link l : POD.route(f.srcDevice(), f.dstDevice(), f.channel()).links()) {
                    if (l.kind() == LinkKind.GPU_NIC && l.src().id() == POD.device(f.srcDevice()).id()) {
                        out.merge(f.srcDevice(), f.bytes() * POD.tuning().netEfficiency(), Double::sum);
                    }
                }
            }
        }
        return out;
    }

    @Test
    void sendsTheDirectExchangesNetworkBytesRailAlignedInFewerFlows() {
        long bytes = 64L << 20;
        PxnAlgorithm pxn = new PxnAlgorithm();
        List<Phase> rail = pxn.plan(CollectiveOp.ALL_TO_ALL, GROUP, bytes, Protocol.SIMPLE, POD);
        List<Phase> direct = new DirectAlgorithm().plan(CollectiveOp.ALL_TO_ALL, GROUP, bytes, Protocol.SIMPLE, POD);
        // 4 servers of 8: every GPU sends 3/4 of its buffer off its server either way
        Map<Integer, Double> r = nicBytes(rail);
        Map<Integer, Double> d = nicBytes(direct);
        for (int g = 0; g < 32; g++) {
            assertEquals(0.75 * bytes, r.get(g), 0.001 * bytes, "gpu " + g);
            assertEquals(d.get(g), r.get(g), 0.001 * bytes, "gpu " + g);
        }
        assertEquals(2, rail.size());
        assertEquals(32 * 7, rail.get(0).flows().size(), "NVLink hand-over to every local peer");
        assertEquals(32 * 3, rail.get(1).flows().size(), "one message per other server");
        assertEquals(32 * 31, direct.get(0).flows().size());
        for (Flow f : rail.get(1).flows()) {
            assertEquals(f.srcDevice() % 8, f.dstDevice() % 8, "stays on its rail: " + f);
            for (Link l : POD.route(f.srcDevice(), f.dstDevice(), f.channel()).links()) {
                assertTrue(l.kind() != LinkKind.SWITCH_SWITCH, "never crosses a spine: " + f);
            }
        }
        for (Flow f : rail.get(0).flows()) {
            assertEquals(f.srcDevice() / 8, f.dstDevice() / 8, "first phase inside a server: " + f);
        }
    }

    @Test
    void needsSeveralServersOfEqualSize() {
        PxnAlgorithm pxn = new PxnAlgorithm();
        assertTrue(pxn.unsupported(CollectiveOp.ALL_TO_ALL, new CommGroup(new int[] {0, 1, 2, 3}), POD).isPresent());
        assertTrue(pxn.unsupported(CollectiveOp.ALL_TO_ALL, new CommGroup(new int[] {0, 1, 8}), POD).isPresent());
        assertTrue(pxn.unsupported(CollectiveOp.ALL_REDUCE, GROUP, POD).isPresent());
    }
}
