package org.clustersim.topology;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Static ECMP picks a next hop as the flow's hash modulo the live next hops, as switches without
 * resilient hashing do: a spine going down moves flows that never crossed it, not only its own.
 * This is why a failed spine can make a step faster (README, "What if a cable fails"): the
 * reshuffle can break up a hash collision that limited the healthy step. If this ever becomes
 * resilient hashing (only the failed spine's flows move), that explanation must change too.
 */
class ModuloEcmpTest {
    @Test
    void aDownSpineReshufflesFlowsThatNeverCrossedIt() {
        // 4 SUs of 4 servers with 4 GPUs: every leaf has one uplink to each of spines 0-3
        Topology t = new SuperPodSpec("rails", AcceleratorSpec.H100_SXM, 4, 4, 4, 450e9, 250, 50e9, 200, 1200, 1.0)
                .build();
        Router router = t.router();
        Vertex spine0 = t.vertices().stream().filter(v -> v.name().equals("spine0")).findFirst().orElseThrow();
        LinkStates healthy = LinkStates.healthy(t);
        List<Vertex> before = new ArrayList<>();
        int perSu = 16;
        // rail 0 of every server to rail 0 of every server in another SU, over 4 channels
        List<int[]> flows = new ArrayList<>();
        for (int src = 0; src < t.deviceCount(); src += 4) {
            for (int dst = 0; dst < t.deviceCount(); dst += 4) {
                if (src / perSu != dst / perSu) {
                    for (int channel = 0; channel < 4; channel++) {
                        flows.add(new int[] {src, dst, channel});
                        before.add(spineOf(router.route(src, dst, channel, healthy)));
                    }
                }
            }
        }
        LinkStates down = LinkStates.healthy(t);
        for (Link l : t.links()) {
            if (l.src() == spine0 || l.dst() == spine0) {
                down.setFactor(l.id(), 0);
            }
        }
        int avoided = 0;
        int moved = 0;
        for (int i = 0; i < flows.size(); i++) {
            int[] f = flows.get(i);
            Vertex after = spineOf(router.route(f[0], f[1], f[2], down));
            assertNotEquals(spine0, after, "a route through the down spine");
            if (before.get(i) != spine0) {
                avoided++;
                moved += after != before.get(i) ? 1 : 0;
            }
        }
        assertTrue(avoided > 100, "flows that avoided spine0: " + avoided);
        // modulo 3 instead of 4: about two thirds of the flows that avoided spine0 move (resilient
        // hashing would move none of them)
        assertTrue(moved > avoided / 3, moved + " of " + avoided + " flows moved");
    }

    /** The spine a leaf-to-leaf route crosses: the far end of its first switch-to-switch link. */
    private static Vertex spineOf(Route r) {
        for (Link l : r.links()) {
            if (l.src().kind() == VertexKind.SWITCH && l.dst().kind() == VertexKind.SWITCH) {
                return l.dst();
            }
        }
        throw new AssertionError("no switch-to-switch hop in " + r);
    }
}
