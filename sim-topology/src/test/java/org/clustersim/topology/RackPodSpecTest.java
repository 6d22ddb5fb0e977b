package org.clustersim.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

class RackPodSpecTest {
    private static long count(Topology t, VertexKind kind) {
        return t.vertices().stream().filter(v -> v.kind() == kind).count();
    }

    private static long switchesNamed(Topology t, String part) {
        return t.vertices().stream().filter(v -> v.kind() == VertexKind.SWITCH && v.name().contains(part)).count();
    }

    private static Set<LinkKind> kinds(Route r) {
        return r.links().stream().map(Link::kind).collect(Collectors.toSet());
    }

    private static RackPodSpec gb200(int racks) {
        return RackPodSpec.of(SwitchedClusterSpec.gb200Nvl72(1), racks);
    }

    @Test
    void oneScalableUnitHas18LeavesOfFourRailsUnderSixteenSpines() {
        Topology t = gb200(8).build();
        assertEquals(576, t.deviceCount());
        assertEquals(576, count(t, VertexKind.NIC));
        assertEquals(8, count(t, VertexKind.NVSWITCH));
        assertEquals(18, switchesNamed(t, "leaf"));
        assertEquals(16, switchesNamed(t, "spine"));
        assertEquals(0, switchesNamed(t, "core"));
        // every leaf: 32 NICs (4 rails x 8 racks) down, 32 cables up, 2 to each spine
        Map<Vertex, Integer> down = new HashMap<>();
        Map<Vertex, Integer> up = new HashMap<>();
        for (Link l : t.links()) {
            if (l.kind() == LinkKind.NIC_SWITCH && l.dst().kind() == VertexKind.SWITCH) {
                down.merge(l.dst(), 1, Integer::sum);
            } else if (l.kind() == LinkKind.SWITCH_SWITCH && l.src().name().contains("leaf")) {
                up.merge(l.src(), 1, Integer::sum);
            }
        }
        assertEquals(Set.of(32), Set.copyOf(down.values()));
        assertEquals(Set.of(32), Set.copyOf(up.values()));
    }

    @Test
    void thirtyNineRacksBuildThreeLevels() {
        RackPodSpec s = gb200(39);
        assertEquals(2808, s.gpus());
        assertEquals(5, s.scalableUnits());
        assertEquals(90, s.leaves());
        assertTrue(s.threeLevel());
        Topology t = s.build();
        assertEquals(2808, t.deviceCount());
        assertEquals(2808, count(t, VertexKind.NIC));
        assertEquals(90, switchesNamed(t, "leaf"));
        assertEquals(3 * 32, switchesNamed(t, "spine"));
        assertEquals(32 * 2, switchesNamed(t, "core"));
        // no switch uses more ports than it has (both directions counted once)
        Map<Vertex, Integer> ports = new HashMap<>();
        for (Link l : t.links()) {
            if (l.src().kind() == VertexKind.SWITCH) {
                ports.merge(l.src(), 1, Integer::sum);
            }
        }
        assertTrue(ports.values().stream().allMatch(p -> p <= 64), "ports " + ports.values());
        // the last rack's GPUs reach the first rack's over the fabric, the first rack's among themselves on NVLink
        Route far = t.route(0, 38 * 72 + 71);
        assertTrue(kinds(far).contains(LinkKind.SWITCH_SWITCH), far.links().toString());
        assertFalse(kinds(far).contains(LinkKind.NVLINK), far.links().toString());
    }

    @Test
    void sameRackTrafficStaysOnNvlinkAndSameRailTrafficUnderOneLeaf() {
        Topology t = gb200(16).build();
        assertEquals(Set.of(LinkKind.NVLINK), kinds(t.route(3, 70)));
        assertEquals(2, t.route(3, 70).links().size());
        // GPU 5 of rack 0 and of rack 7 (one SU, rails 4-7 on one leaf): GPU-NIC-leaf-NIC-GPU
        Route rail = t.route(5, 7 * 72 + 5);
        assertEquals(4, rail.links().size(), rail.links().toString());
        assertFalse(kinds(rail).contains(LinkKind.SWITCH_SWITCH));
        // other rail groups, or the same rails in the other SU, go up to a spine
        assertTrue(kinds(t.route(5, 7 * 72 + 40)).contains(LinkKind.SWITCH_SWITCH));
        assertTrue(kinds(t.route(5, 8 * 72 + 5)).contains(LinkKind.SWITCH_SWITCH));
    }

    @Test
    void routesUseTheRackNicsAtTheirRate() {
        Topology t = RackPodSpec.of(SwitchedClusterSpec.gb300Nvl72(1), 2).build();
        Route r = t.route(0, 72 + 9);
        assertEquals(100e9, r.bottleneckBytesPerS(), 1);
        assertEquals(900e9, t.route(0, 9).bottleneckBytesPerS(), 1);
        assertEquals(50e9, gb200(2).build().route(0, 72 + 9).bottleneckBytesPerS(), 1);
    }

    @Test
    void oneRackHasNoScaleOutFabricAndAPartialUnitKeepsItsLeaves() {
        Topology one = gb200(1).build();
        assertEquals(72, one.deviceCount());
        assertEquals(0, count(one, VertexKind.NIC));
        Topology three = gb200(3).build();
        assertEquals(216, three.deviceCount());
        assertEquals(18, switchesNamed(three, "leaf"));
        assertEquals(Set.of(LinkKind.GPU_NIC, LinkKind.NIC_SWITCH), kinds(three.route(0, 2 * 72)));
    }

    @Test
    void impossibleLayoutsSayWhy() {
        IllegalArgumentException rails = assertThrows(IllegalArgumentException.class,
                () -> new RackPodSpec("x", AcceleratorSpec.GB200, 4, 70, 8, 900e9, 250, 50e9, 200, 1200, 64, 1));
        assertTrue(rails.getMessage().contains("4 rails each, which do not divide 70 GPUs per rack"),
                rails.getMessage());
        assertTrue(rails.getMessage().contains("fat-tree"), rails.getMessage());
        IllegalArgumentException big = assertThrows(IllegalArgumentException.class, () -> gb200(1000));
        assertTrue(big.getMessage().contains("at most 904 racks"), big.getMessage());
        gb200(904);
        assertThrows(IllegalArgumentException.class, () -> gb200(8).withOversubscription(0.5));
    }

    @Test
    void spineRuleGivesTheSuperPodXdrTableWith144PortSwitches() {
        // DGX SuperPOD B300 XDR reference, table 3: SUs of 576 GPUs on 144-port switches
        int[][] table = {{1, 8, 4}, {2, 16, 8}, {4, 32, 18}, {8, 64, 36}, {18, 144, 72}};
        for (int[] row : table) {
            RackPodSpec s = RackPodSpec.of(SwitchedClusterSpec.gb300Nvl72(1), row[0] * 8);
            assertEquals(144, s.radix());
            assertEquals(row[1], s.leaves(), row[0] + " SU leaves");
            assertEquals(row[2], s.spines(), row[0] + " SU spines");
            assertFalse(s.threeLevel());
        }
        Topology t = RackPodSpec.of(SwitchedClusterSpec.gb300Nvl72(1), 8).build();
        assertEquals(8, switchesNamed(t, "leaf"));
        assertEquals(4, switchesNamed(t, "spine"));
    }
}
