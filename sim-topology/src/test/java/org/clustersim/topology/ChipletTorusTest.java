package org.clustersim.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** TPU7x slices: two TensorCore devices per chip joined by the die-to-die link, chips on a v5p-like torus. */
class ChipletTorusTest {
    private static Link only(Route r) {
        assertEquals(1, r.links().size(), r.links().toString());
        return r.links().get(0);
    }

    @Test
    void eachChipIsTwoDevicesJoinedByTheDieToDieLink() {
        TorusSpec t = TorusSpec.tpu7x(4, 4, 4);
        Topology topo = t.build();
        assertEquals(128, topo.deviceCount(), "64 chips, 2 devices each");
        assertEquals(16, t.nodes(), "4 chips per host");
        assertEquals(8, t.gpusPerNode(), "8 devices per host");
        assertEquals("slice0.chip[0,0,0].core0", topo.device(0).name());
        assertEquals("slice0.chip[0,0,0].core1", topo.device(1).name(), "the core is fastest, as in jax.devices()");
        assertEquals("slice0.chip[1,0,0].core0", topo.device(2).name());
        assertEquals(topo.device(0).node(), topo.device(1).node(), "a chip's two devices share its host");
        Link d2d = only(topo.route(0, 1));
        assertEquals(600e9, d2d.bandwidthBytesPerS(), 0, "die-to-die, not ICI");
        Link ici = only(topo.route(0, 2));
        assertEquals(50e9, ici.bandwidthBytesPerS(), 0, "each chiplet carries half of a 100 GB/s chip link");
        assertEquals(2307e12 / 2, topo.accelerator().bf16Flops(), 1e6, "a device is half the chip");
    }

    @Test
    void onlyTheChipAxesWrapAndRoutesTakeTheCoreAxisFirst() {
        TorusSpec t = TorusSpec.tpu7x(4, 4, 4);
        assertFalse(t.wraps(0), "the core axis is one die-to-die link");
        assertTrue(t.wraps(1) && t.wraps(2) && t.wraps(3), "whole 4x4x4 cubes wrap");
        assertFalse(TorusSpec.tpu7x(2, 2, 1).wraps(1));
        Topology topo = t.build();
        // core 0 of chip (0,0,0) to core 1 of chip (3,0,0): across the die, then the x wraparound
        List<Link> path = topo.route(0, 2 * 3 + 1).links();
        assertEquals(2, path.size(), path.toString());
        assertEquals(600e9, path.get(0).bandwidthBytesPerS(), 0);
        assertEquals("slice0.chip[3,0,0].core1", path.get(1).dst().name());
        assertTrue(t.describe().contains("4(wrap)x4(wrap)x4(wrap)") && t.describe().contains("2 TensorCore devices"),
                t.describe());
    }
}
