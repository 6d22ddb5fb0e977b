package org.clustersim.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class FatTreeSpecTest {

    private static long switchesNamed(Topology t, String part) {
        return t.vertices().stream().filter(v -> v.kind() == VertexKind.SWITCH && v.name().contains(part)).count();
    }

    @Test
    void twoLevelNonBlockingTreeSplitsPortsInHalf() {
        FatTreeSpec s = FatTreeSpec.h100(64, 1);
        Topology t = s.build();
        assertEquals(512, t.deviceCount());
        assertEquals(16, switchesNamed(t, "leaf"), "512 GPUs / 32 down ports");
        assertEquals(32, switchesNamed(t, "spine"), "one spine per leaf uplink");
        assertEquals(2, t.route(0, 7).hops(), "inside a server: NVSwitch");
        assertEquals(4, t.route(0, 8).hops(), "servers 0 and 1 share leaf 0");
        assertEquals(6, t.route(0, 511).hops());
    }

    @Test
    void oversubscriptionChangesThePortSplitAndTheBisection() {
        FatTreeSpec one = FatTreeSpec.h100(64, 1);
        FatTreeSpec three = FatTreeSpec.h100(64, 3);
        assertEquals(48, three.leafDown());
        assertEquals(16, three.leafUp());
        // half the GPUs against the other half: the leaf uplinks of one half bound the flow
        double b1 = SuperPodSpecTest.maxFlow(one.build(), v -> v.node() < 32, v -> v.node() >= 32);
        assertEquals(256 * 50e9, b1, 1e3, "non-blocking: every GPU at full NIC rate");
        Topology t3 = three.build();
        double b3 = SuperPodSpecTest.maxFlow(t3, v -> v.node() < 32, v -> v.node() >= 32);
        // 48 GPUs share 16 uplinks per leaf: about a third of the non-blocking bisection
        assertTrue(b3 < b1 / 2.5 && b3 > b1 / 3.5, "bisection " + b3);
    }

    @Test
    void threeLevelTreeHasPodsAndCorePlanes() {
        FatTreeSpec s = FatTreeSpec.h100(256, 1, 1);
        Topology t = s.build();
        assertEquals(64, s.leaves());
        assertEquals(2, s.pods(), "32 leaves per pod");
        assertEquals(64, s.spines());
        assertEquals(32, s.cores(), "32 planes of 1 core: 2 pods x 32 uplinks fit one 64-port core");
        assertEquals(64 + 64 + 32, t.vertices().stream().filter(v -> v.kind() == VertexKind.SWITCH).count());
        assertEquals(8, t.route(0, 2047).hops(), "across pods: leaf, spine, core, spine, leaf");
    }

    @Test
    void rejectsImpossibleTrees() {
        assertThrows(IllegalArgumentException.class, () -> FatTreeSpec.h100(512, 1), "too many leaves for 2 levels");
        assertThrows(IllegalArgumentException.class, () -> FatTreeSpec.h100(8, 0.5));
    }
}
