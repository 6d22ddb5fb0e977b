package org.clustersim.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SwitchedClusterSpecTest {

    @Test
    void singleNodeHasOneNvSwitchAndDuplexNvLinks() {
        Topology t = SwitchedClusterSpec.dgxH100(1).build();
        assertEquals(8, t.deviceCount());
        assertEquals(9, t.vertices().size(), "8 GPUs + 1 NVSwitch");
        assertEquals(16, t.links().size(), "one link each way per GPU");
        assertEquals(8, t.graph().outDegreeOf(t.vertices().get(8)), "the switch reaches every GPU");
    }

    @Test
    void multiNodeAddsOneNicPerGpuAndOneSwitch() {
        Topology t = SwitchedClusterSpec.dgxH100(3).build();
        assertEquals(24, t.deviceCount());
        // 24 GPUs, 3 NVSwitches, 24 NICs, 1 scale-out switch
        assertEquals(24 + 3 + 24 + 1, t.vertices().size());
        // NVLink 2 x 24, GPU-NIC 2 x 24, NIC-switch 2 x 24
        assertEquals(3 * 48, t.links().size());
    }

    @Test
    void intraNodeRouteCrossesTheNvSwitch() {
        Topology t = SwitchedClusterSpec.dgxH100(2).build();
        Route r = t.route(0, 5);
        assertEquals(2, r.hops());
        assertEquals("node0.gpu0->node0.nvswitch", r.links().get(0).name());
        assertEquals("node0.nvswitch->node0.gpu5", r.links().get(1).name());
        assertEquals(450e9, r.bottleneckBytesPerS());
        assertEquals(500, r.latencyNs());
    }

    @Test
    void interNodeRouteGoesThroughNicsAndSwitch() {
        Topology t = SwitchedClusterSpec.dgxH100(2).build();
        Route r = t.route(3, 8 + 6);
        assertEquals(4, r.hops());
        assertEquals(LinkKind.GPU_NIC, r.links().get(0).kind());
        assertEquals(LinkKind.NIC_SWITCH, r.links().get(1).kind());
        assertEquals("switch0", r.links().get(1).dst().name());
        assertEquals(50e9, r.bottleneckBytesPerS());
        assertEquals(2 * (200 + 1200), r.latencyNs(), "2.8 us, the published same-leaf IB latency");
    }

    @Test
    void routesAreCachedAndSelfRouteIsEmpty() {
        Topology t = SwitchedClusterSpec.dgxA100(2).build();
        assertSame(t.route(1, 9), t.route(1, 9));
        assertEquals(0, t.route(4, 4).hops());
        assertTrue(Double.isInfinite(t.route(4, 4).bottleneckBytesPerS()));
        assertEquals(25e9, t.route(1, 9).bottleneckBytesPerS());
        assertEquals(300e9, t.route(1, 2).bottleneckBytesPerS());
    }
}
