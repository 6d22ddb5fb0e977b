package org.clustersim.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TorusSpecTest {

    private static int iciNeighbours(Topology t, int device) {
        return (int) t.graph().outgoingEdgesOf(t.device(device)).stream().filter(l -> l.kind() == LinkKind.ICI)
                .map(Link::dst).distinct().count();
    }

    @Test
    void wholeCubesWrapSoEveryChipHasSixNeighbours() {
        TorusSpec s = TorusSpec.v4(4, 4, 4);
        Topology t = s.build();
        assertEquals(64, t.deviceCount());
        assertEquals(16, s.nodes(), "4 chips per host");
        for (int d = 0; d < 64; d++) {
            assertEquals(6, iciNeighbours(t, d), "chip " + d);
        }
        assertEquals(64 * 6, t.links().size(), "3 axes x 2 directions per chip");
    }

    @Test
    void aSliceThatIsNotWholeCubesDoesNotWrap() {
        TorusSpec s = TorusSpec.v4(4, 4, 2);
        assertFalse(s.wraps(0));
        Topology t = s.build();
        assertEquals(3, iciNeighbours(t, 0), "a corner: +x, +y, +z only");
        assertEquals(5, iciNeighbours(t, 1 + 4), "interior of a face: x +-1, y +-1, z +1");
    }

    @Test
    void v5eWrapsOnlyAxesOfSixteen() {
        TorusSpec s = TorusSpec.v5e(8, 16);
        assertFalse(s.wraps(0));
        assertTrue(s.wraps(1));
        Topology t = s.build();
        assertEquals(3, iciNeighbours(t, 0), "x edge: +x, y both ways (wrapped)");
        assertEquals(4, iciNeighbours(t, 3), "x interior");
        assertEquals(4, iciNeighbours(TorusSpec.v5e(16, 16).build(), 0));
        assertEquals(8, s.gpusPerNode());
    }

    @Test
    void dimensionOrderRoutesTakeTheShorterWayAroundWrappedAxes() {
        TorusSpec s = TorusSpec.v4(4, 4, 4);
        Topology t = s.build();
        // (0,0,0) -> (2,3,1): x 2 hops, y 1 hop backwards through the wrap, z 1 hop
        int dst = 2 + 4 * 3 + 16 * 1;
        Route r = t.route(0, dst);
        assertEquals(4, r.hops());
        assertEquals(4000, r.latencyNs(), "about 1 us per ICI hop");
        assertEquals("slice0.chip[1,0,0]", r.links().get(0).dst().name(), "x first");
        assertEquals("slice0.chip[2,3,0]", r.links().get(2).dst().name(), "then y, through the wraparound");
        // diameter of a wrapped 4x4x4 torus: 2 hops per axis
        int max = 0;
        for (int d = 0; d < 64; d++) {
            max = Math.max(max, t.route(0, d).hops());
        }
        assertEquals(6, max);
        assertEquals(3 + 3 + 1, TorusSpec.v4(4, 4, 2).build().route(0, 3 + 12 + 16).hops(), "no wrap: 3 + 3 + 1");
    }

    @Test
    void aFailedLinkIsRoutedAroundAndSlicesMeetOverDcn() {
        TorusSpec s = TorusSpec.v5e(4, 4).withSlices(2);
        Topology t = s.build();
        LinkStates states = LinkStates.healthy(t);
        Route direct = t.router().route(0, 2, 0, states);
        assertEquals(2, direct.hops());
        states.setFactor(direct.links().get(0).id(), 0);
        Route around = t.router().route(0, 2, 0, states);
        assertTrue(around.hops() > 2 && !around.links().contains(direct.links().get(0)), around.toString());
        Route dcn = t.route(0, 16 + 5);
        assertEquals(4, dcn.hops(), "chip, NIC, DCN switch, NIC, chip");
        assertEquals(LinkKind.DCN, dcn.links().get(1).kind());
        assertEquals(25e9, dcn.bottleneckBytesPerS());
    }

    @Test
    void rejectsBadShapes() {
        assertThrows(IllegalArgumentException.class, () -> new TorusSpec("x", AcceleratorSpec.TPU_V4, new int[] {4},
                4, 45e9, 1000, true, 1, 25e9, 2000, 1));
        assertThrows(IllegalArgumentException.class, () -> new TorusSpec("x", AcceleratorSpec.TPU_V4,
                new int[] {3, 3}, 4, 45e9, 1000, true, 1, 25e9, 2000, 1));
    }

    @Test
    void aPlacementRenumbersChipsAndRoutesStillFollowThePhysicalTorus() {
        int[] transposed = new int[16];
        for (int d = 0; d < 16; d++) {
            transposed[d] = (d % 4) * 4 + d / 4;
        }
        TorusSpec s = TorusSpec.v5e(4, 4).withPlacement(transposed);
        Topology t = s.build();
        assertEquals("slice0.chip[0,1]", t.device(1).name(), "device 1 is the y neighbour now");
        assertEquals(1, s.deviceAt(4));
        assertEquals(0, t.device(1).node(), "hosts stay physical: 8 chips (two rows of x) per host");
        assertEquals(1, t.device(2).node(), "chip[0,2] is on the second host");
        LinkStates states = LinkStates.healthy(t);
        Route direct = t.router().route(0, 1, 0, states);
        assertEquals(1, direct.hops());
        assertEquals("slice0.chip[0,1]", direct.links().get(0).dst().name());
        states.setFactor(direct.links().get(0).id(), 0);
        Route around = t.router().route(0, 1, 0, states);
        assertEquals(3, around.hops(), "x, y, back along x: " + around);
        assertTrue(!around.links().contains(direct.links().get(0)));
        assertThrows(IllegalArgumentException.class, () -> TorusSpec.v5e(4, 4).withPlacement(new int[] {0, 0}));
    }
}
